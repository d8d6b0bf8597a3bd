/**
 * The toolbox daemon's command splitter for `process/execute`, in behaviour: it runs no shell,
 * splits on spaces outside quotes, a quote of the other kind inside quotes is kept, there are no
 * escapes, and an empty argument (`''`) disappears. Tabs and newlines are ordinary characters.
 */
export function parseCommand(command: string): string[] {
  const args: string[] = [];
  let current = "";
  let quote: string | undefined;
  for (const char of command) {
    if (char === '"' || char === "'") {
      if (quote === undefined) quote = char;
      else if (quote === char) quote = undefined;
      else current += char;
    } else if (char === " " && quote === undefined) {
      if (current) args.push(current);
      current = "";
    } else {
      current += char;
    }
  }
  if (current) args.push(current);
  return args;
}

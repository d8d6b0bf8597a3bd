// An embedder or plugin author imports from the package's entries, and nothing else: every type
// an entry's functions take or return, and the members of its interfaces and classes, must be one
// they can import by name (the kit's `drainStream` once took a `ByteCapture` no entry exported,
// nor a way to make one). Read from the sources with the TypeScript compiler, so a new export is
// checked as it lands.
import path from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const SRC = fileURLToPath(new URL("../src/", import.meta.url));
const ENTRIES = ["index.ts", "protocol.ts", "backend-kit.ts", "plugin-kit.ts"].map((file) => path.join(SRC, file));

const program = ts.createProgram(ENTRIES, {
  strict: true,
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  noEmit: true,
});
const checker = program.getTypeChecker();

function resolved(symbol: ts.Symbol): ts.Symbol {
  return symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
}

function exportsOf(entry: string): ts.Symbol[] {
  const module = checker.getSymbolAtLocation(program.getSourceFile(entry)!)!;
  return checker.getExportsOfModule(module).map(resolved);
}

/** Every symbol a plugin author can import by name. */
const importable = new Set(ENTRIES.flatMap(exportsOf));

/** The type nodes of a declaration's public surface: parameters, results, members (not private ones). */
function surface(declaration: ts.Declaration): ts.TypeNode[] {
  const nodes: ts.TypeNode[] = [];
  const ofSignature = (node: ts.SignatureDeclarationBase) => {
    for (const parameter of node.parameters) if (parameter.type) nodes.push(parameter.type);
    if (node.type) nodes.push(node.type);
  };
  const isPublic = (member: ts.Node) =>
    !(ts.getCombinedModifierFlags(member as ts.Declaration) & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected)) &&
    !((member as ts.NamedDeclaration).name && ts.isPrivateIdentifier((member as ts.NamedDeclaration).name!));
  const ofMember = (member: ts.Node) => {
    if (!isPublic(member)) return;
    if (ts.isPropertySignature(member) || ts.isPropertyDeclaration(member)) {
      if (member.type) nodes.push(member.type);
    } else if (ts.isMethodSignature(member) || ts.isMethodDeclaration(member) || ts.isConstructorDeclaration(member)) ofSignature(member);
    else if (ts.isGetAccessorDeclaration(member) && member.type) nodes.push(member.type);
  };
  if (ts.isFunctionDeclaration(declaration)) ofSignature(declaration);
  else if (ts.isInterfaceDeclaration(declaration) || ts.isClassDeclaration(declaration)) declaration.members.forEach(ofMember);
  return nodes;
}

/** The declared types (interfaces, type aliases, classes, enums of core) that `node` names. */
function namedTypes(node: ts.Node, into: Set<ts.Symbol>): Set<ts.Symbol> {
  if (ts.isTypeReferenceNode(node)) {
    // `StandardSchemaV1.Issue` is imported through its namespace.
    let name = node.typeName;
    while (ts.isQualifiedName(name)) name = name.left;
    const symbol = checker.getSymbolAtLocation(name);
    const target = symbol && resolved(symbol);
    const declared = target?.declarations?.[0];
    if (target && declared && declared.getSourceFile().fileName.startsWith(SRC) && !ts.isTypeParameterDeclaration(declared)) into.add(target);
  }
  ts.forEachChild(node, (child) => void namedTypes(child, into));
  return into;
}

describe.each(["index.ts", "protocol.ts", "backend-kit.ts", "plugin-kit.ts"])("the types %s's exports use", (entry) => {
  it("can all be imported by name from a public entry", () => {
    const missing = new Set<string>();
    for (const symbol of exportsOf(path.join(SRC, entry))) {
      for (const declaration of symbol.declarations ?? []) {
        for (const node of surface(declaration)) {
          for (const used of namedTypes(node, new Set())) if (!importable.has(used)) missing.add(`${used.name} (used by ${symbol.name})`);
        }
      }
    }
    expect([...missing].sort()).toEqual([]);
  });
});

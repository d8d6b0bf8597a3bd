const t0 = performance.now();
const mods = process.argv.slice(2);
for (const m of mods) { const s = performance.now(); await import(m); console.log(m, (performance.now() - s).toFixed(1)); }
console.log("total", (performance.now() - t0).toFixed(1), "since start", performance.now().toFixed(1));

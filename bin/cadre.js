#!/usr/bin/env node
// The `cadre` command. Runs cadre's TypeScript sources directly with Node's type stripping
// (Node >= 22.19); see docs/decisions/0001-run-typescript-sources-directly.md.
const [major, minor] = process.versions.node.split(".").map(Number);
if (major < 22 || (major === 22 && minor < 19)) {
	process.stderr.write(
		`cadre needs Node >= 22.19 (this is ${process.versions.node}). ` +
			"Inside the project run it through npm (npx cadre …), which puts the bundled Node first on PATH.\n",
	);
	process.exit(2);
}
const { main } = await import("../src/hosts/cli/main.ts");
process.exitCode = await main(process.argv.slice(2));

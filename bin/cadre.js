#!/usr/bin/env node
// The `cadre` command (docs/decisions/0003-ship-a-build-run-sources-in-a-checkout.md). In a checkout
// it runs the TypeScript sources with Node's type stripping; the npm package ships no sources and
// runs the JavaScript build in dist/ (Node never strips types under node_modules).
import { existsSync } from "node:fs";

const sources = new URL("../src/hosts/cli/main.ts", import.meta.url);
const checkout = existsSync(sources);
const [major, minor] = process.versions.node.split(".").map(Number);
if (major < 22 || (major === 22 && minor < 19)) {
	process.stderr.write(
		`cadre needs Node >= 22.19 (this is ${process.versions.node}). ` +
			(checkout
				? "In the repository, run it as `npx cadre …`: npm puts the repository's Node 22 first on PATH.\n"
				: "Install Node 22.19 or newer (https://nodejs.org) and run cadre with it.\n"),
	);
	process.exit(2);
}
const { main } = await import(checkout ? sources.href : "../dist/hosts/cli/main.js");
process.exitCode = await main(process.argv.slice(2));

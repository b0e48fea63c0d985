#!/usr/bin/env node
// The `cadre` command (docs/decisions/0003-ship-a-build-run-sources-in-a-checkout.md). In a checkout
// it runs the TypeScript sources with Node's type stripping; the npm package ships no sources and
// runs the JavaScript build in dist/ (Node never strips types under node_modules).
// The package runs on Node >= 20; the commands that load pi (explain, prompt, run) need what pi
// needs, Node >= 22.19, and say so (ADR 0101). A checkout needs 22.19 for the type stripping.
import { existsSync } from "node:fs";

const PI_NEEDED = "22.19";
const LOADS_PI = new Set(["explain", "prompt", "run"]);
const sources = new URL("../src/hosts/cli/main.ts", import.meta.url);
const checkout = existsSync(sources);
const [major, minor] = process.versions.node.split(".").map(Number);
const args = process.argv.slice(2);
const command = args.find((arg) => !arg.startsWith("-"));
if (major < 22 || (major === 22 && minor < 19)) {
	const refuse = (why) => {
		process.stderr.write(`${why} (this is ${process.versions.node}). `);
		process.stderr.write(
			checkout
				? "In the repository, run it as `npx cadre …`: npm puts the repository's Node 22 first on PATH.\n"
				: `Install Node ${PI_NEEDED} or newer (https://nodejs.org) and run cadre with it; list, check, import and worktrees run on Node 20.\n`,
		);
		process.exit(2);
	};
	if (checkout) refuse(`cadre needs Node >= ${PI_NEEDED}`);
	if (major < 20) refuse("cadre needs Node >= 20");
	if (command !== undefined && LOADS_PI.has(command)) refuse(`cadre ${command} loads pi, which needs Node >= ${PI_NEEDED}`);
}
const { main } = await import(checkout ? sources.href : "../dist/hosts/cli/main.js");
process.exitCode = await main(args);

/**
 * `npm run bench:sandbox` (issue 27, ADRs 0151, 0187, 0195): in one run, the sandbox's start-up per
 * parent process, one child's preparation (policy, hard-link walk), and a trivial bash call made
 * through pi's own bash tool inside the child's sandbox (its long-lived sandboxed shell, ADR 0195)
 * against the same tool call outside; the child's first call (which starts its sandbox); and, for
 * reference, the earlier design (one sandbox start per call, its split) and the library used naively
 * (a wrap per call, network configured). Target: ≤ 25 ms added per call.
 */
import { spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { benchRoot, ms, now } from "./support.ts";

const { sandboxManager, COMMAND_VARIABLE } = await import("../src/sandbox/manager.ts");
const { prepareChildSandbox } = await import("../src/sandbox/child-sandbox.ts");
const { defaultSandboxSettings } = await import("../src/files/sandbox-settings.ts");
const { sandboxPlatform } = await import("../src/sandbox/platform.ts");

const RUNS = 30;
const platform = sandboxPlatform();
if (!platform.available) {
	console.log(`bench:sandbox skipped: ${platform.reason}`);
	process.exit(0);
}

function run(command: string, env: NodeJS.ProcessEnv): Promise<void> {
	return new Promise((resolve, reject) => {
		const child = spawn("bash", ["-c", command], { env, stdio: "ignore" });
		child.on("error", reject);
		child.on("close", (code) => (code === 0 ? resolve() : reject(new Error(`exit ${code}`))));
	});
}

async function p50(label: string, once: () => Promise<void>): Promise<number> {
	await once();
	const times: number[] = [];
	for (let i = 0; i < RUNS; i++) {
		const start = now();
		await once();
		times.push(now() - start);
	}
	times.sort((a, b) => a - b);
	const median = times[Math.floor(times.length / 2)] as number;
	console.log(`${label.padEnd(44)} p50 ${ms(median)}  min ${ms(times[0] as number)}`);
	return median;
}

const worktree = join(benchRoot, "tmp", "worktree");
mkdirSync(worktree, { recursive: true });
for (let i = 0; i < 200; i++) writeFileSync(join(worktree, `f${i}.txt`), "x\n");

let start = now();
const manager = await sandboxManager();
console.log(`${"sandbox start-up (once per parent)".padEnd(44)} ${ms(now() - start)}`);
start = now();
const sandbox = await prepareChildSandbox({
	config: { sandbox: "auto", sandboxed: true, capabilityMode: null, tools: ["bash"] },
	cwd: worktree,
	writeRoot: worktree,
	homeDir: process.env.HOME as string,
	agentDir: process.env.PI_CODING_AGENT_DIR as string,
	baseDir: worktree,
	settings: defaultSandboxSettings(),
});
console.log(`${"child preparation (once per child)".padEnd(44)} ${ms(now() - start)}`);
const bashTool = sandbox.tools.find((tool) => tool.name === "bash");
if (!bashTool) throw new Error("no sandboxed bash");
const { createBashToolDefinition } = await import("@earendil-works/pi-coding-agent");
const localBash = createBashToolDefinition(worktree);
const toolCall = (tool: { execute: (...args: never[]) => Promise<unknown> }) => async () => {
	await (tool.execute as (...args: unknown[]) => Promise<unknown>)("bench", { command: "true" }, undefined, undefined, undefined);
};
start = now();
await toolCall(bashTool)();
const firstCall = now() - start;
const toolOutside = await p50("bash tool `true`, outside", toolCall(localBash));
const toolInside = await p50("bash tool `true`, in the child's sandbox", toolCall(bashTool));
console.log(`${"  the child's first call (starts its sandbox)".padEnd(44)} ${ms(firstCall)}`);
// The wrap the child's bash tool runs (the spawn hook's command), with the real command in a variable.
const wrap = (await import("../src/sandbox/manager.ts")).wrapChild;
const wrapped = await wrap(sandbox.policy, []);
const env = { ...process.env, [COMMAND_VARIABLE]: "true" };
console.log("for reference, one sandbox start per call (ADRs 0151, 0187):");
const outside = await p50("  bash -c true, outside", () => run("true", process.env));
const inside = await p50("  bash -c true, a sandbox started per call", () => run(wrapped.command, env));
// Where the added time goes: the same bubblewrap invocation running `true` itself (its mounts and
// namespaces), then through the library's seccomp helper, then the shells of the full wrap.
const split = wrapped.command.lastIndexOf(" -- ");
const bwrapPart = wrapped.command.slice(0, split);
const helper = /(\S*apply-seccomp)/.exec(wrapped.command)?.[1] ?? null;
const bwrapOnly = await p50("  bwrap alone (same mounts and namespaces)", () => run(`${bwrapPart} -- /usr/bin/true`, env));
const withHelper = helper ? await p50("  bwrap + seccomp helper, no shell", () => run(`${bwrapPart} -- /usr/bin/env SRT_ALLOW_NESTED_USERNS=0 ${helper} /usr/bin/true`, env)) : bwrapOnly;
const naive = await p50("  naive: wrap per call, network bridge", async () => {
	const command = await manager.wrapWithSandbox("true", "bash", { filesystem: { denyRead: sandbox.policy.denyRead, allowRead: [], allowWrite: sandbox.policy.write, denyWrite: [] }, network: { allowedDomains: [], deniedDomains: [] } } as never);
	await run(command, process.env);
});
console.log(`added per call: ${ms(toolInside - toolOutside)} (target ≤ 25 ms), ratio inside/outside ${(toolInside / toolOutside).toFixed(2)}×; a sandbox per call added ${ms(inside - outside)}, naive ${ms(naive - outside)}`);
console.log(`  of which bubblewrap (mounts, user/pid/net namespaces, /proc): ${ms(bwrapOnly - outside)}; seccomp helper (its nested namespaces): ${ms(withHelper - bwrapOnly)}; the wrap's shells: ${ms(inside - withHelper)}`);
console.log(`  per child, not per call: the wrap (computed once, in child preparation); no network bridge for a child without network: ${/socat|claude-http/.test(wrapped.command) ? "NO (bridge in the wrap)" : "yes"}`);
sandbox.dispose();
await manager.reset();

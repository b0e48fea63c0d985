/**
 * `npm run bench:sandbox` (issue 27, ADR 0151): in one run, the sandbox's start-up per parent
 * process, one child's preparation (policy, hard-link walk, the wrap computed once), and a trivial
 * bash command spawned the way pi's bash tool spawns it (`bash -c`) inside the child's sandbox
 * against the same command outside; plus the library used naively (a wrap per call, network
 * configured) for reference. Target: ≤ 25 ms added per call.
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
// The wrap the child's bash tool runs (the spawn hook's command), with the real command in a variable.
const wrap = (await import("../src/sandbox/manager.ts")).wrapChild;
const wrapped = await wrap(sandbox.policy, []);
const env = { ...process.env, [COMMAND_VARIABLE]: "true" };
const outside = await p50("bash -c true, outside", () => run("true", process.env));
const inside = await p50("bash -c true, in the child's sandbox", () => run(wrapped.command, env));
// Where the added time goes: the same bubblewrap invocation running `true` itself (its mounts and
// namespaces), then through the library's seccomp helper, then the shells of the full wrap.
const split = wrapped.command.lastIndexOf(" -- ");
const bwrapPart = wrapped.command.slice(0, split);
const helper = /(\S*apply-seccomp)/.exec(wrapped.command)?.[1] ?? null;
const bwrapOnly = await p50("  bwrap alone (same mounts and namespaces)", () => run(`${bwrapPart} -- /usr/bin/true`, env));
const withHelper = helper ? await p50("  bwrap + seccomp helper, no shell", () => run(`${bwrapPart} -- /usr/bin/env SRT_ALLOW_NESTED_USERNS=0 ${helper} /usr/bin/true`, env)) : bwrapOnly;
const naive = await p50("naive: wrap per call, network bridge", async () => {
	const command = await manager.wrapWithSandbox("true", "bash", { filesystem: { denyRead: sandbox.policy.denyRead, allowRead: [], allowWrite: sandbox.policy.write, denyWrite: [] }, network: { allowedDomains: [], deniedDomains: [] } } as never);
	await run(command, process.env);
});
console.log(`added per call: ${ms(inside - outside)} (target ≤ 25 ms); naive adds ${ms(naive - outside)}; ratio inside/outside ${(inside / outside).toFixed(1)}×`);
console.log(`  of which bubblewrap (mounts, user/pid/net namespaces, /proc): ${ms(bwrapOnly - outside)}; seccomp helper (its nested namespaces): ${ms(withHelper - bwrapOnly)}; the wrap's shells: ${ms(inside - withHelper)}`);
console.log(`  per child, not per call: the wrap (computed once, in child preparation); no network bridge for a child without network: ${/socat|claude-http/.test(wrapped.command) ? "NO (bridge in the wrap)" : "yes"}`);
sandbox.dispose();
await manager.reset();

/**
 * SSH workspaces (issue 25), against a real sshd on 127.0.0.1 started for the run
 * (test/support/sshd.ts), with floors measured in the same run:
 *
 * - tool-call latency: pi's read and bash tools over SSH (remote tools, each call one channel on
 *   the kept connection, confined by real path on the remote) against the same tools locally, and
 *   the transport's floor — one `true` on a new channel;
 * - the remote sandbox (ADR 0191): a bash call of a sandboxed remote child (bubblewrap and the
 *   seccomp helper on the remote) against the same call of an unsandboxed one, both over SSH, and
 *   the probe of a connection (once per connection; the helper's upload once per host);
 * - spawn time: an isolated remote child (connect, clone synced by bundle, remote worktree) and its
 *   whole cycle (commit, bundle back, fetched as cadre/<id>) against a local isolated one
 *   (createWorktree with the pool off, finishWorktree).
 *
 * The remote here is this machine: the numbers are the protocol's and the remote shell's cost
 * (the login shell reads the user's rc files on every command), not a network's.
 * Run with `npm run bench:remote` (`ROUNDS=n` to change the rounds).
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { createBashToolDefinition, createReadToolDefinition, type ToolDefinition } from "@earendil-works/pi-coding-agent";
import type { Settings, WorkspaceSpec } from "../src/files/types.ts";
import { createWorktree } from "../src/isolation/worktree.ts";
import { finishWorktree } from "../src/isolation/worktree-finish.ts";
import { remoteTools } from "../src/runtime/pi/remote-tools.ts";
import { remoteOps } from "../src/workspaces/remote-fs.ts";
import { prepareRemoteChild } from "../src/workspaces/remote-child.ts";
import { probeRemoteSandbox } from "../src/workspaces/remote-sandbox.ts";
import { connectSsh } from "../src/workspaces/ssh-connection.ts";
import { sshdMissing, startSshd } from "../test/support/sshd.ts";

const ROUNDS = Number(process.env.ROUNDS ?? 10);
const missing = sshdMissing();
if (missing) {
	console.log(`bench:remote skipped: ${missing}`);
	process.exit(0);
}

const base = realpathSync(mkdtempSync(join(tmpdir(), "cadre-bench-remote-")));
process.env.TMPDIR = base;
process.env.GIT_CONFIG_GLOBAL = "/dev/null";
process.env.GIT_CONFIG_NOSYSTEM = "1";
const repo = join(base, "repo");
const agentDir = join(base, "agent");
mkdirSync(repo, { recursive: true });
const git = (...args: string[]) => execFileSync("git", args, { cwd: repo, stdio: "pipe" }).toString().trim();
git("init", "-q", "-b", "main");
git("config", "user.name", "Bench");
git("config", "user.email", "bench@localhost");
for (let i = 0; i < 500; i++) {
	mkdirSync(join(repo, `pkg${i % 10}`), { recursive: true });
	writeFileSync(join(repo, `pkg${i % 10}`, `file${i}.ts`), `export const value${i} = ${i};\n`);
}
git("add", "-A");
git("commit", "-q", "-m", "generated");
const head = git("rev-parse", "HEAD");

const sshd = await startSshd();
const spec: WorkspaceSpec = { type: "ssh", host: sshd.host, port: sshd.port, user: sshd.user, identityFile: sshd.identityFile, knownHosts: sshd.knownHosts, root: sshd.root, maxConcurrent: 4, source: "bench" };

function percentile(samples: number[], p: number): number {
	const sorted = [...samples].sort((a, b) => a - b);
	return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}
const p50 = (samples: number[]) => percentile(samples, 50);
function line(name: string, samples: number[], floor?: number, floorName = "floor"): void {
	const ratio = floor ? `  (${(p50(samples) / floor).toFixed(2)}× ${floorName})` : "";
	console.log(`${name.padEnd(52)} p50 ${p50(samples).toFixed(1).padStart(8)} ms   p95 ${percentile(samples, 95).toFixed(1).padStart(8)} ms${ratio}`);
}
async function time(fn: () => Promise<unknown>): Promise<number> {
	const t = performance.now();
	await fn();
	return performance.now() - t;
}
const call = (tool: ToolDefinition, params: Record<string, unknown>) => tool.execute("b", params as never, undefined, undefined, undefined as never);

try {
	// tool calls
	const connection = await connectSsh({ name: "bench", host: sshd.host, port: sshd.port, user: sshd.user, identityFile: sshd.identityFile, knownHosts: sshd.knownHosts });
	const remoteTree = join(sshd.root, "tree");
	execFileSync("git", ["clone", "-q", repo, remoteTree]);
	const remote = new Map(remoteTools({ tools: ["read", "bash"], ops: remoteOps(async () => connection, { remoteDir: remoteTree, localCwd: repo }), workspace: "bench" }).map((t) => [t.name, t]));
	const localRead = createReadToolDefinition(repo) as unknown as ToolDefinition;
	const localBash = createBashToolDefinition(repo) as unknown as ToolDefinition;
	const floor: number[] = [];
	const rr: number[] = [], lr: number[] = [], rb: number[] = [], lb: number[] = [];
	await call(remote.get("read") as ToolDefinition, { path: "pkg1/file1.ts" }); // warm
	for (let i = 0; i < ROUNDS; i++) {
		floor.push(await time(() => connection.exec("true")));
		rr.push(await time(() => call(remote.get("read") as ToolDefinition, { path: `pkg${i % 10}/file${i}.ts` })));
		lr.push(await time(() => call(localRead, { path: `pkg${i % 10}/file${i}.ts` })));
		rb.push(await time(() => call(remote.get("bash") as ToolDefinition, { command: "ls pkg1 | wc -l" })));
		lb.push(await time(() => call(localBash, { command: "ls pkg1 | wc -l" })));
	}
	connection.close();
	console.log(`tool calls (${ROUNDS} rounds; the remote is 127.0.0.1)`);
	line("ssh channel floor (`true`)", floor);
	line("read local", lr);
	line("read over SSH", rr, p50(lr), "local read");
	line("bash local", lb);
	line("bash over SSH", rb, p50(lb), "local bash");
	line("read over SSH vs the channel floor", rr, p50(floor), "channel floor");

	// the remote sandbox: a sandboxed child's bash against an unsandboxed one's, both over SSH
	const sandboxSettings = { default: { value: "auto" as const, source: "bench" }, denyRead: [], envAllow: [], allowNetwork: [] };
	let t0 = performance.now();
	const boxed = await prepareRemoteChild({ name: "bench", spec, localRepo: repo, base: head, id: "bench-boxed", localCwd: repo, tools: ["bash"], sandbox: { readOnly: false, settings: sandboxSettings } });
	const boxedSpawn = performance.now() - t0;
	t0 = performance.now();
	const open = await prepareRemoteChild({ name: "bench", spec, localRepo: repo, base: head, id: "bench-open", localCwd: repo, tools: ["bash"] });
	const openSpawn = performance.now() - t0;
	const probeConnection = await connectSsh({ name: "bench", host: sshd.host, port: sshd.port, user: sshd.user, identityFile: sshd.identityFile, knownHosts: sshd.knownHosts });
	const probeMs = await time(() => probeRemoteSandbox(probeConnection, sshd.root));
	probeConnection.close();
	const boxedBash = boxed.tools.find((tool) => tool.name === "bash") as ToolDefinition;
	const openBash = open.tools.find((tool) => tool.name === "bash") as ToolDefinition;
	const sb: number[] = [], ub: number[] = [];
	await call(boxedBash, { command: "true" }); // warm
	for (let i = 0; i < ROUNDS; i++) {
		sb.push(await time(() => call(boxedBash, { command: "ls pkg1 | wc -l" })));
		ub.push(await time(() => call(openBash, { command: "ls pkg1 | wc -l" })));
	}
	await boxed.finish();
	boxed.dispose();
	await open.finish();
	open.dispose();
	console.log(`\nthe remote sandbox (${ROUNDS} rounds; bubblewrap + seccomp helper on the remote)`);
	line("bash over SSH, unsandboxed", ub);
	line("bash over SSH, sandboxed on the remote", sb, p50(ub), "unsandboxed");
	console.log(`${"added per call (p50)".padEnd(52)}     ${(p50(sb) - p50(ub)).toFixed(1).padStart(8)} ms`);
	console.log(`${"probe of a connection (helper already there)".padEnd(52)}     ${probeMs.toFixed(1).padStart(8)} ms`);
	console.log(`${"spawn, sandboxed (first: probe + helper upload)".padEnd(52)}     ${boxedSpawn.toFixed(1).padStart(8)} ms`);
	console.log(`${"spawn, unsandboxed".padEnd(52)}     ${openSpawn.toFixed(1).padStart(8)} ms`);

	// spawns
	const settings: Settings["worktree"] = { baseDir: null, allowSharedFallback: false, pool: { size: 0 } };
	const info = { type: "bench", description: "bench run", status: "completed" } as const;
	const ls: number[] = [], lc: number[] = [], rs: number[] = [], rc: number[] = [];
	let first = 0;
	for (let i = 0; i < ROUNDS; i++) {
		let t = performance.now();
		const outcome = await createWorktree({ runId: `local-${i}`, parentCwd: repo, agentDir, settings });
		if (outcome.kind !== "worktree") throw new Error(JSON.stringify(outcome));
		ls.push(performance.now() - t);
		writeFileSync(join(outcome.handle.worktreePath, "new.txt"), `local ${i}\n`);
		await finishWorktree(outcome.handle, info);
		lc.push(performance.now() - t);

		t = performance.now();
		const child = await prepareRemoteChild({ name: "bench", spec, localRepo: repo, base: head, id: `remote-${i}`, localCwd: repo, tools: ["write"] });
		const spawned = performance.now() - t;
		if (i === 0) first = spawned;
		else rs.push(spawned);
		writeFileSync(join(child.worktree.dir, "new.txt"), `remote ${i}\n`); // the "remote" is this machine
		await child.finish();
		child.dispose();
		if (i > 0) rc.push(performance.now() - t);
	}
	console.log(`\nspawns (${ROUNDS} rounds, 500-file repository; remote rounds after the first reuse the clone)`);
	console.log(`${"remote isolated spawn, first (clone created + bundle)".padEnd(52)}     ${first.toFixed(1).padStart(8)} ms`);
	line("local isolated spawn (worktree add)", ls);
	line("remote isolated spawn (connect + remote worktree)", rs, p50(ls), "local spawn");
	line("local isolated cycle (spawn + commit + remove)", lc);
	line("remote isolated cycle (spawn + commit + fetch home)", rc, p50(lc), "local cycle");
} finally {
	await sshd.stop();
}

/**
 * Issue 25 through `cadre run` (the real bin against the chat-completions stub, and a real sshd):
 * a type with `workspace: box` runs its tools on the SSH workspace and its work arrives as the
 * local branch `cadre/<id>`; a wrong host key refuses the spawn `workspace-untrusted-host`; and a
 * batch of 12 over two workspaces keeps each one's maxConcurrent (counted by the runs themselves
 * at the servers).
 */
import { existsSync, mkdirSync, readdirSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ChatServer, startChatServer } from "../support/chat-server.ts";
import { cadre, gitOut, runWorld } from "../support/cadre-run.ts";
import { sshdMissing, startSshd, type TestSshd } from "../support/sshd.ts";

const missing = sshdMissing();
const workspace = (sshd: TestSshd, max = 2, knownHosts = sshd.knownHosts) => ({
	type: "ssh",
	host: sshd.host,
	port: sshd.port,
	user: sshd.user,
	identityFile: sshd.identityFile,
	knownHosts,
	root: sshd.root,
	maxConcurrent: max,
});
const definition = (names: string) => `---\nname: remote\ndescription: works on a remote host\ntools: read, write, edit, bash\nworkspace: [${names}]\n---\nYou work remotely.\n`;

describe.skipIf(missing !== null)("cadre run on SSH workspaces", () => {
	let server: ChatServer;
	const servers: TestSshd[] = [];
	beforeAll(async () => {
		server = await startChatServer(() => ({ text: "unscripted" }));
		servers.push(await startSshd(), await startSshd());
	});
	afterAll(async () => {
		await server?.close();
		for (const sshd of servers) await sshd.stop();
	});

	it("runs the child's tools on the workspace; its work arrives as cadre/<id>", async () => {
		const [box] = servers as [TestSshd];
		const world = runWorld("run-remote-", server.baseUrl, { git: true, files: { "agent/subagents.json": JSON.stringify({ workspaces: { box: workspace(box) } }), "agent/agents/remote.md": definition("box") } });
		server.setScript((request) =>
			request.step === 0
				? { toolCalls: [{ name: "write", arguments: { path: "notes.txt", content: "from afar\n" } }] }
				: request.step === 1
					? { toolCalls: [{ name: "bash", arguments: { command: "echo remote-$(cat notes.txt | tr ' ' '-') && pwd" } }] }
					: { text: `done: ${request.lastText}` },
		);
		const run = await cadre(world, ["run", "remote", "write the notes", "--json"], { timeoutMs: 18_000 });
		expect(run.code, run.stderr).toBe(0);
		const result = JSON.parse(run.stdout);
		expect(result.isolation).toMatchObject({ workspace: "box", branch: `cadre/${result.id}` });
		expect(result.text).toContain("remote-from-afar");
		expect(result.text).toContain(join(box.root, "worktrees", result.id));
		expect(gitOut(world.project, ["show", `cadre/${result.id}:notes.txt`])).toBe("from afar\n");
		expect(gitOut(world.project, ["status", "--porcelain"])).toBe("");
	}, 20_000);

	it("runs the child's verify where the child worked: in its remote worktree, not in the parent's checkout", async () => {
		const [box] = servers as [TestSshd];
		const verifying = definition("box").replace("workspace:", 'verify: "test -f notes.txt && echo verified-in-$(basename $(pwd))"\nworkspace:');
		const world = runWorld("run-remote-verify-", server.baseUrl, { git: true, files: { "agent/subagents.json": JSON.stringify({ workspaces: { box: workspace(box) } }), "agent/agents/remote.md": verifying } });
		server.setScript((request) => (request.step === 0 ? { toolCalls: [{ name: "write", arguments: { path: "notes.txt", content: "remote notes\n" } }] } : { text: "written" }));
		const run = await cadre(world, ["run", "remote", "write the notes", "--json"], { timeoutMs: 18_000 });
		expect(run.code, run.stderr).toBe(0);
		const result = JSON.parse(run.stdout);
		expect(result.verify).toMatchObject({ ok: true });
		expect(result.verify.outputTail).toContain(`verified-in-${result.id}`);
	}, 20_000);

	it("a resumed remote run continues on the same workspace and branch, from its work so far", async () => {
		const [box] = servers as [TestSshd];
		const world = runWorld("run-remote-resume-", server.baseUrl, { git: true, files: { "agent/subagents.json": JSON.stringify({ workspaces: { box: workspace(box) } }), "agent/agents/remote.md": definition("box") } });
		server.setScript((request) =>
			request.step === 0 ? { toolCalls: [{ name: "write", arguments: { path: "first.txt", content: "first part\n" } }] } : { text: "first done" },
		);
		const first = JSON.parse((await cadre(world, ["run", "remote", "write the first part", "--json"], { timeoutMs: 18_000 })).stdout);
		expect(first.status).toBe("completed");
		// its remote worktree went away once its work was home
		expect(existsSync(join(box.root, "worktrees", first.id))).toBe(false);
		// the resumed conversation holds the first run's two answers: its own start at step 2
		server.setScript((request) =>
			request.step === 2
				? { toolCalls: [{ name: "bash", arguments: { command: "cat first.txt && echo second part > second.txt && pwd" } }] }
				: { text: `second done: ${request.lastText}` },
		);
		const run = await cadre(world, ["run", "--resume", first.id, "write the second part", "--json"], { timeoutMs: 18_000 });
		expect(run.code, run.stderr).toBe(0);
		const second = JSON.parse(run.stdout);
		expect(second.text).toContain("first part");
		expect(second.isolation).toMatchObject({ workspace: "box", branch: `cadre/${first.id}` });
		expect(second.text).toContain(join(box.root, "worktrees", first.id));
		expect(gitOut(world.project, ["show", `cadre/${first.id}:first.txt`])).toBe("first part\n");
		expect(gitOut(world.project, ["show", `cadre/${first.id}:second.txt`])).toBe("second part\n");
		expect(() => gitOut(world.project, ["rev-parse", "--verify", "-q", `cadre/${second.id}`])).toThrow();
	}, 30_000);

	it("starts from the parent's uncommitted work with copy_uncommitted (a base commit synced like any)", async () => {
		const [box] = servers as [TestSshd];
		const world = runWorld("run-remote-dirty-", server.baseUrl, {
			git: true,
			files: { "agent/subagents.json": JSON.stringify({ workspaces: { box: workspace(box) } }), "agent/agents/remote.md": definition("box").replace("workspace:", "isolation: worktree\nworkspace:") },
		});
		writeFileSync(join(world.project, "README.md"), "# changed, not committed\n");
		writeFileSync(join(world.project, "extra.txt"), "untracked\n");
		server.setScript((request) => (request.step === 0 ? { toolCalls: [{ name: "bash", arguments: { command: "cat README.md extra.txt" } }] } : { text: request.lastText }));
		const file = join(world.root, "one.jsonl");
		writeFileSync(file, `${JSON.stringify({ type: "remote", prompt: "look", copy_uncommitted: true })}\n`);
		const run = await cadre(world, ["run", "--batch", file, "--json"], { timeoutMs: 18_000 });
		expect(run.code, run.stderr).toBe(0);
		const [result] = run.stdout.trim().split("\n").map((line) => JSON.parse(line));
		expect(result.text).toContain("# changed, not committed");
		expect(result.text).toContain("untracked");
		expect(gitOut(world.project, ["log", "--format=%B", "-1", `cadre/${result.id}`])).toContain(`Cadre-Uncommitted-Base: ${result.id}`);
		// the parent's files are as they were
		expect(gitOut(world.project, ["status", "--porcelain"])).toContain("README.md");
	}, 20_000);

	it("refuses the spawn workspace-untrusted-host when the host key is not the known one", async () => {
		const [box] = servers as [TestSshd];
		const world = runWorld("run-remote-bad-", server.baseUrl, { git: true, files: { "agent/subagents.json": JSON.stringify({ workspaces: { box: workspace(box, 2, box.wrongKnownHosts) } }), "agent/agents/remote.md": definition("box") } });
		const before = server.requests.length;
		const run = await cadre(world, ["run", "remote", "anything"], { timeoutMs: 15_000 });
		expect(run.code).not.toBe(0);
		expect(run.stderr).toContain("workspace-untrusted-host");
		expect(run.stderr).toContain("never trusts a host key on first use");
		expect(server.requests.length).toBe(before); // no model call: the child never started
	}, 20_000);

	it("fails the run workspace-lost when the server dies mid-run, keeps the remote work, and `cadre worktrees recover` fetches it", async () => {
		const sshd = await startSshd();
		servers.push(sshd);
		const world = runWorld("run-remote-lost-", server.baseUrl, { git: true, files: { "agent/subagents.json": JSON.stringify({ workspaces: { box: { ...workspace(sshd), graceSeconds: 1 } } }), "agent/agents/remote.md": definition("box") } });
		server.setScript((request) => {
			if (request.step === 0) return { toolCalls: [{ name: "write", arguments: { path: "notes.txt", content: "half done\n" } }] };
			if (request.step === 1) {
				setTimeout(() => void sshd.kill(), 1500); // while the command below runs
				return { toolCalls: [{ name: "bash", arguments: { command: "sleep 20" } }] };
			}
			// the model would go on; the workspace's grace period ends first
			return { text: `saw: ${request.lastText}`, hold: new Promise((r) => setTimeout(r, 5000)) };
		});
		const run = await cadre(world, ["run", "remote", "take notes", "--json"], { timeoutMs: 18_000 });
		const result = JSON.parse(run.stdout);
		expect(result.status, run.stderr).toBe("failed");
		expect(result.error).toContain("workspace-lost");
		expect(result.isolation).toMatchObject({ workspace: "box", kept: true });
		expect(existsSync(join(sshd.root, "worktrees", result.id, "notes.txt"))).toBe(true);
		expect(() => gitOut(world.project, ["rev-parse", "--verify", "-q", `cadre/${result.id}`])).toThrow();
		await sshd.restart();
		// the run's record where a pi session keeps its children's (<sessionDir>/cadre/<session id>/), not cadre run's
		const records = join(world.agentDir, "cadre", "transcripts");
		const sessionRecords = join(world.agentDir, "sessions", "--project--", "cadre", "a-session-id");
		mkdirSync(sessionRecords, { recursive: true });
		for (const name of readdirSync(records).filter((n) => n.startsWith(result.id))) renameSync(join(records, name), join(sessionRecords, name));
		const recover = await cadre(world, ["worktrees", "recover"], { timeoutMs: 15_000 });
		expect(recover.code, recover.stderr).toBe(0);
		expect(recover.stdout).toContain(`fetched cadre/${result.id}`);
		expect(gitOut(world.project, ["show", `cadre/${result.id}:notes.txt`])).toBe("half done\n");
		// its work is home: the remote tree went, and a second recover has nothing to do
		expect(existsSync(join(sshd.root, "worktrees", result.id))).toBe(false);
		const again = await cadre(world, ["worktrees", "recover"], { timeoutMs: 15_000 });
		expect(again.code, again.stderr).toBe(0);
		expect(again.stdout).toContain(`${result.id}: nothing to recover`);
	}, 20_000);

	it("spreads a batch of 12 over two workspaces, each one's maxConcurrent respected at its server", async () => {
		const [a, b] = servers as [TestSshd, TestSshd];
		for (const sshd of servers) mkdirSync(join(sshd.root, "running"), { recursive: true });
		const world = runWorld("run-remote-batch-", server.baseUrl, {
			git: true,
			// sandbox: off (a user file): the counting writes beside the worktrees, which the remote sandbox forbids (ADR 0191)
			files: { "agent/subagents.json": JSON.stringify({ maxConcurrent: 8, workspaces: { a: workspace(a, 3), b: workspace(b, 4) } }), "agent/agents/remote.md": definition("a, b").replace("workspace:", "sandbox: off\nworkspace:") },
		});
		// each child counts the children running on its server while it runs (a folder per child)
		server.setScript((request) =>
			request.step === 0
				? { toolCalls: [{ name: "bash", arguments: { command: `r=$(cd ../.. && pwd)/running; mkdir "$r/$$"; sleep 0.5; echo "count=$(ls "$r" | wc -l) root=$(cd ../.. && pwd)"; rmdir "$r/$$"` } }] }
				: { text: request.lastText },
		);
		const file = join(world.root, "batch.jsonl");
		writeFileSync(file, Array.from({ length: 12 }, (_, i) => JSON.stringify({ type: "remote", prompt: `item ${i + 1}` })).join("\n"));
		const run = await cadre(world, ["run", "--batch", file, "--json"], { timeoutMs: 19_000 });
		expect(run.code, run.stderr).toBe(0);
		const results = run.stdout.trim().split("\n").map((line) => JSON.parse(line)).slice(0, -1);
		expect(results).toHaveLength(12);
		const seen = results.map((r) => ({ workspace: r.isolation?.workspace as string, count: Number(/count=(\d+)/.exec(r.text)?.[1]), root: /root=(\S+)/.exec(r.text)?.[1] }));
		for (const [name, sshd, max] of [["a", a, 3], ["b", b, 4]] as const) {
			const here = seen.filter((s) => s.workspace === name);
			expect(here.length).toBeGreaterThan(0);
			expect(here.every((s) => s.root === sshd.root)).toBe(true);
			expect(Math.max(...here.map((s) => s.count))).toBeLessThanOrEqual(max);
		}
	}, 20_000);
});

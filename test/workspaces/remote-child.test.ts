/**
 * Issue 25, end to end against a real sshd: a pi child session (faux model) whose tools run on
 * the SSH workspace edits a file and runs commands in its remote worktree, and its work arrives
 * in the parent's repository as `cadre/<id>`; a wrong host key refuses the child before anything
 * runs; killing the server mid-run fails the tool call, the run ends `workspace-lost`, the remote
 * work is kept and recovering fetches it.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fauxAssistantMessage, fauxProvider, fauxToolCall } from "@earendil-works/pi-ai";
import { ModelRuntime } from "@earendil-works/pi-coding-agent";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { WorkspaceSpec } from "../../src/files/types.ts";
import { createChildSession } from "../../src/runtime/pi/child-session.ts";
import { prepareRemoteChild, recoverRemoteRun } from "../../src/workspaces/remote-child.ts";
import { describeTurn } from "../runtime/harness.ts";
import { sshdMissing, startSshd, type TestSshd } from "../support/sshd.ts";

const missing = sshdMissing();
const git = (cwd: string, ...args: string[]) => execFileSync("git", args, { cwd, encoding: "utf8", env: { ...process.env, GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@t" } }).trim();

function repo(): string {
	const dir = mkdtempSync(join(process.env.TMPDIR ?? tmpdir(), "cadre-parent-"));
	git(dir, "init", "-q", "-b", "main");
	writeFileSync(join(dir, "app.txt"), "hello\n");
	git(dir, "add", "-A");
	git(dir, "commit", "-q", "-m", "first");
	return dir;
}

describe.skipIf(missing !== null)("a child on an SSH workspace", () => {
	let sshd: TestSshd;
	let spec: WorkspaceSpec;
	let runtime: ModelRuntime;
	let faux: ReturnType<typeof fauxProvider>;
	const agentDir = mkdtempSync(join(process.env.TMPDIR ?? tmpdir(), "remote-child-agent-"));
	beforeAll(async () => {
		sshd = await startSshd();
		spec = { type: "ssh", host: sshd.host, port: sshd.port, user: sshd.user, identityFile: sshd.identityFile, knownHosts: sshd.knownHosts, root: sshd.root, maxConcurrent: 2, source: "test" };
		runtime = await ModelRuntime.create({ authPath: join(agentDir, "auth.json"), modelsPath: join(agentDir, "models.json"), allowModelNetwork: false });
		faux = fauxProvider({ provider: "faux", models: [{ id: "m" }] });
		runtime.registerNativeProvider(faux.provider);
	});
	afterAll(async () => sshd?.stop());

	const session = (cwd: string, tools: unknown[], agent: string) =>
		createChildSession({
			modelRuntime: runtime,
			model: "faux/m",
			thinkingLevel: "off",
			cwd,
			agentDir,
			projectTrusted: false,
			systemPrompt: `<active_agent name="${agent}"/>`,
			skills: [],
			tools: ["read", "edit", "write", "bash"],
			extensionPaths: [],
			guard: () => null,
			sessionDir: join(agentDir, "sessions"),
			customTools: tools as never,
		});

	it("edits and runs commands remotely; its work arrives as cadre/<id>", async () => {
		const parent = repo();
		const head = git(parent, "rev-parse", "HEAD");
		const child = await prepareRemoteChild({ name: "box", spec, localRepo: parent, base: head, id: "run1", localCwd: parent, tools: ["read", "edit", "write", "bash"] });
		const results: string[] = [];
		faux.setResponses(
			Array.from({ length: 6 }, () => (context: never) => {
				const turn = describeTurn(context);
				if (turn.agent !== "editor") return fauxAssistantMessage("not mine");
				if (turn.step > 0) results.push(turn.lastText);
				if (turn.step === 0) return fauxAssistantMessage([fauxToolCall("edit", { path: "app.txt", edits: [{ oldText: "hello", newText: "hello from afar" }] })], { stopReason: "toolUse" });
				if (turn.step === 1) return fauxAssistantMessage([fauxToolCall("bash", { command: "cat app.txt && uname -s > built.txt && echo leak > ../leak.txt && echo ran-remotely" })], { stopReason: "toolUse" });
				return fauxAssistantMessage("done");
			}) as never,
		);
		const handle = await session(parent, child.tools, "editor");
		await handle.run("change the greeting");
		handle.dispose();
		expect(results[1]).toContain("hello from afar");
		expect(results[1]).toContain("ran-remotely");
		// nothing happened in the parent's files
		expect(git(parent, "status", "--porcelain")).toBe("");
		expect(existsSync(join(parent, "built.txt"))).toBe(false);
		const done = await child.finish();
		child.dispose();
		expect(done.branch).toBe("cadre/run1");
		// the escape check on the remote: bash wrote beside the worktree
		expect(done.escaped).toEqual([join(sshd.root, "worktrees", "leak.txt")]);
		expect(git(parent, "show", "cadre/run1:app.txt")).toBe("hello from afar");
		expect(git(parent, "show", "cadre/run1:built.txt")).toBe("Linux");
		expect(git(parent, "merge-base", "main", "cadre/run1")).toBe(head);
	}, 20_000);

	it("refuses a workspace whose host key is not the known one, before anything runs", async () => {
		const parent = repo();
		const head = git(parent, "rev-parse", "HEAD");
		await expect(prepareRemoteChild({ name: "box", spec: { ...spec, knownHosts: sshd.wrongKnownHosts }, localRepo: parent, base: head, id: "run2", localCwd: parent, tools: ["bash"] })).rejects.toMatchObject({ code: "workspace-untrusted-host" });
		expect(existsSync(join(sshd.root, "worktrees", "run2"))).toBe(false);
	});

	it("fails the run workspace-lost when the server dies mid-run, keeps the remote work, and recover fetches it", async () => {
		const parent = repo();
		const head = git(parent, "rev-parse", "HEAD");
		const child = await prepareRemoteChild({
			name: "box",
			spec,
			localRepo: parent,
			base: head,
			id: "run3",
			localCwd: parent,
			tools: ["write", "bash"],
			link: { graceMs: 1500, retryMs: 200, connect: { keepaliveInterval: 200, keepaliveCountMax: 2, readyTimeout: 1000 } },
		});
		let toolError = "";
		faux.setResponses(
			Array.from({ length: 8 }, () => (context: never) => {
				const turn = describeTurn(context);
				if (turn.agent !== "faulty") return fauxAssistantMessage("not mine");
				if (turn.step === 0) return fauxAssistantMessage([fauxToolCall("write", { path: "notes.txt", content: "half done\n" })], { stopReason: "toolUse" });
				if (turn.step === 1) {
					setTimeout(() => void sshd.kill(), 1500); // while the command below runs
					return fauxAssistantMessage([fauxToolCall("bash", { command: "sleep 20" })], { stopReason: "toolUse" });
				}
				if (turn.step === 2) toolError = turn.lastText;
				return fauxAssistantMessage("could not finish");
			}) as never,
		);
		const handle = await session(parent, child.tools, "faulty");
		// the run's outcome: the link's verdict wins over the model's last word
		const outcome = await Promise.race([handle.run("take notes").then(() => child.lost), child.lost]);
		handle.dispose();
		child.dispose();
		expect(toolError).toContain("the SSH connection was lost");
		expect(outcome.code).toBe("workspace-lost");
		expect(existsSync(join(child.worktree.dir, "notes.txt"))).toBe(true);
		await sshd.restart();
		await recoverRemoteRun({ name: "box", spec, localRepo: parent, base: head, id: "run3", worktree: child.worktree });
		expect(git(parent, "show", "cadre/run3:notes.txt")).toBe("half done");
	}, 20_000);
});

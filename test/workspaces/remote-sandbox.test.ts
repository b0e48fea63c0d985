/**
 * Issue 25's last gap (ADR 0191): the sandbox policy applies on the remote. Against a real sshd on
 * 127.0.0.1 (its sessions get a temp HOME holding `~/.ssh/id_rsa` and a credential variable), a
 * remote isolated child's bash runs in the remote's bubblewrap: writing outside its remote worktree
 * (absolute, `..`), into another child's remote worktree, reading the remote user's key or another
 * child's files, printing a credential variable and reaching a server the test started on
 * 127.0.0.1 are all blocked; the same attempts of an unsandboxed child succeed (each check can
 * fail). A read-only child cannot write at all; the file tools honour `sandbox.denyRead`. A remote
 * without bubblewrap on its PATH, or with one that cannot start a sandbox, is found so by the probe,
 * and a child that must run sandboxed is refused `sandbox-unavailable` before anything is made
 * there. The seccomp helper is uploaded once and replaced when its hash is not the library's.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ToolDefinition } from "@earendil-works/pi-coding-agent";
import type { SandboxSettings, WorkspaceSpec } from "../../src/files/types.ts";
import { prepareRemoteChild, type RemoteChild } from "../../src/workspaces/remote-child.ts";
import { forgetRemoteSandboxFacts, probeWorkspaces } from "../../src/workspaces/remote-sandbox.ts";
import { REPO_ROOT } from "../support/cli.ts";
import { sshdMissing, startSshd, type TestSshd } from "../support/sshd.ts";

const missing = sshdMissing();
const KEY_SECRET = "REMOTE-KEY-3c9d";
const ENV_SECRET = "sk-remote-71fe";
const OTHER_SECRET = "OTHER-CHILD-a41b";
const git = (cwd: string, ...args: string[]) => execFileSync("git", args, { cwd, encoding: "utf8", env: { ...process.env, GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@t" } }).trim();
const temp = (prefix: string) => mkdtempSync(join(process.env.TMPDIR ?? tmpdir(), prefix));
const noSettings = (more: Partial<SandboxSettings> = {}): SandboxSettings => ({ default: { value: "auto", source: "default" }, denyRead: [], envAllow: [], allowNetwork: [], ...more });

function repo(): string {
	const dir = temp("cadre-rs-parent-");
	git(dir, "init", "-q", "-b", "main");
	writeFileSync(join(dir, "app.txt"), "hello\n");
	mkdirSync(join(dir, "private"));
	writeFileSync(join(dir, "private", "notes.txt"), "private notes\n");
	git(dir, "add", "-A");
	git(dir, "commit", "-q", "-m", "first");
	return dir;
}

/** What a bash call printed, whether it exited 0 or not. */
async function sh(child: RemoteChild, command: string): Promise<string> {
	const tool = child.tools.find((t) => t.name === "bash") as ToolDefinition;
	try {
		const result = await tool.execute("id", { command } as never, undefined, undefined, undefined as never);
		return (result.content as { text?: string }[]).map((c) => c.text ?? "").join("");
	} catch (error) {
		return `ERROR ${(error as Error).message}`;
	}
}

async function call(child: RemoteChild, name: string, params: Record<string, unknown>): Promise<string> {
	const tool = child.tools.find((t) => t.name === name) as ToolDefinition;
	try {
		const result = await tool.execute("id", params as never, undefined, undefined, undefined as never);
		return (result.content as { text?: string }[]).map((c) => c.text ?? "").join("");
	} catch (error) {
		return `ERROR ${(error as Error).message}`;
	}
}

describe.skipIf(missing !== null)("the sandbox on an SSH workspace", () => {
	let sshd: TestSshd;
	let spec: WorkspaceSpec;
	let server: Server;
	let port = 0;
	let connections = 0;
	let parent: string;
	let head: string;
	let other: RemoteChild;
	const home = temp("cadre-rs-home-");
	beforeAll(async () => {
		mkdirSync(join(home, ".ssh"));
		writeFileSync(join(home, ".ssh", "id_rsa"), `${KEY_SECRET}\n`);
		sshd = await startSshd({ setEnv: { HOME: home, OPENAI_API_KEY: ENV_SECRET } });
		spec = { type: "ssh", host: sshd.host, port: sshd.port, user: sshd.user, identityFile: sshd.identityFile, knownHosts: sshd.knownHosts, root: sshd.root, maxConcurrent: 4, source: "test" };
		server = createServer((socket) => {
			connections++;
			socket.end("hello\n");
		});
		await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
		port = (server.address() as { port: number }).port;
		parent = repo();
		head = git(parent, "rev-parse", "HEAD");
		// another child on the same workspace, with work of its own in its remote worktree
		other = await prepareRemoteChild({ name: "box", spec, localRepo: parent, base: head, id: "other", localCwd: parent, tools: ["bash"] });
		writeFileSync(join(other.worktree.dir, "mine.txt"), `${OTHER_SECRET}\n`);
	}, 20_000);
	afterAll(async () => {
		other?.dispose();
		server?.close();
		await sshd?.stop();
	});

	const attempts = (root: string) => [
		{ name: "write by absolute path", command: `echo pwned > ${root}/abs.txt`, escaped: () => existsSync(join(root, "abs.txt")) },
		{ name: "write through ..", command: "echo pwned > ../dotdot.txt", escaped: () => existsSync(join(root, "worktrees", "dotdot.txt")) },
		{ name: "write into another child's worktree", command: `echo pwned > ${root}/worktrees/other/planted.txt`, escaped: () => existsSync(join(root, "worktrees", "other", "planted.txt")) },
		{ name: "read another child's files", command: `cat ${root}/worktrees/other/mine.txt`, escaped: (out: string) => out.includes(OTHER_SECRET) },
		{ name: "read the remote user's ~/.ssh/id_rsa", command: "cat ~/.ssh/id_rsa", escaped: (out: string) => out.includes(KEY_SECRET) },
		{ name: "print the environment", command: "env", escaped: (out: string) => out.includes(ENV_SECRET) },
		{ name: "reach a server on 127.0.0.1", command: `exec 3<>/dev/tcp/127.0.0.1/${port} && head -n 1 <&3`, escaped: (out: string) => out.includes("hello") },
	];

	it("blocks every escape of a sandboxed child's bash, and lets it work in its worktree and temp dir", async () => {
		const child = await prepareRemoteChild({ name: "box", spec, localRepo: parent, base: head, id: "boxed", localCwd: parent, tools: ["bash", "read"], sandbox: { readOnly: false, settings: noSettings() } });
		try {
			expect(child.sandbox?.policy.write).toEqual([child.worktree.dir, join(sshd.root, "tmp", "sandbox-boxed")]);
			const before = connections;
			for (const attempt of attempts(sshd.root)) {
				const out = await sh(child, attempt.command);
				expect({ attempt: attempt.name, escaped: attempt.escaped(out) }).toEqual({ attempt: attempt.name, escaped: false });
			}
			expect(connections).toBe(before);
			// what it may do: write in its worktree and $TMPDIR, use git, see its own files
			const ok = await sh(child, 'echo made > made.txt && cat made.txt && echo t > "$TMPDIR/t" && cat "$TMPDIR/t" && git log --oneline -1 && cat app.txt');
			expect(ok).toMatch(/made\nt\n[0-9a-f]+ first\nhello/);
			expect(existsSync(join(child.worktree.dir, "made.txt"))).toBe(true);
		} finally {
			const done = await child.finish();
			child.dispose();
			// nothing escaped, and its work came home
			expect(done.escaped).toEqual([]);
			expect(git(parent, "show", "cadre/boxed:made.txt")).toBe("made");
			expect(existsSync(join(sshd.root, "tmp", "sandbox-boxed"))).toBe(false);
		}
	}, 20_000);

	it("the same attempts of an unsandboxed child succeed (each check can fail)", async () => {
		const child = await prepareRemoteChild({ name: "box", spec, localRepo: parent, base: head, id: "open", localCwd: parent, tools: ["bash"] });
		try {
			const before = connections;
			for (const attempt of attempts(sshd.root)) {
				const out = await sh(child, attempt.command);
				expect({ attempt: attempt.name, escaped: attempt.escaped(out) }).toEqual({ attempt: attempt.name, escaped: true });
			}
			expect(connections).toBe(before + 1);
		} finally {
			child.dispose();
		}
	}, 20_000);

	it("a read-only child's bash cannot write even in its worktree; the file tools honour sandbox.denyRead", async () => {
		const child = await prepareRemoteChild({
			name: "box",
			spec,
			localRepo: parent,
			base: head,
			id: "reader",
			localCwd: parent,
			tools: ["bash", "read", "grep", "ls"],
			sandbox: { readOnly: true, settings: noSettings({ denyRead: ["private"] }) },
		});
		try {
			expect(child.sandbox?.policy.write).toEqual([]);
			expect(await sh(child, "echo x > new.txt; git status --short; cat app.txt")).toContain("hello");
			expect(existsSync(join(child.worktree.dir, "new.txt"))).toBe(false);
			// denied inside its own tree: bash sees nothing there, the file tools refuse it
			expect(await sh(child, "cat private/notes.txt")).not.toContain("private notes");
			expect(await call(child, "read", { path: "private/notes.txt" })).toMatch(/ERROR cadre sandbox: the sandbox denies reading/);
			expect(await call(child, "grep", { pattern: "notes" })).toMatch(/ERROR cadre sandbox: the search would reach/);
			// a symbolic link to the denied folder leads to the same refusal
			symlinkSync(join(child.worktree.dir, "private"), join(child.worktree.dir, "alias"));
			expect(await call(child, "read", { path: "alias/notes.txt" })).toMatch(/ERROR cadre sandbox/);
			expect(await call(child, "read", { path: "app.txt" })).toContain("hello");
			// the refusals are the run's sandbox-blocked warnings
			const blocked = child.diagnostics().filter((d) => d.code === "sandbox-blocked").map((d) => d.message);
			expect(blocked).toHaveLength(3);
			expect(blocked[0]).toContain(`the sandbox on workspace box refused a file tool: the sandbox denies reading ${join(child.worktree.dir, "private")}`);
		} finally {
			child.dispose();
		}
	}, 20_000);
});

describe.skipIf(missing !== null)("the seccomp helper on the workspace", () => {
	let sshd: TestSshd;
	beforeAll(async () => {
		sshd = await startSshd();
	}, 20_000);
	afterAll(async () => sshd?.stop());

	it("is uploaded once into root/.cadre, and replaced on the next connection when its hash is not the library's", async () => {
		const spec: WorkspaceSpec = { type: "ssh", host: sshd.host, port: sshd.port, user: sshd.user, identityFile: sshd.identityFile, knownHosts: sshd.knownHosts, root: sshd.root, maxConcurrent: 2, source: "test" };
		// the "remote" is this machine: its architecture is this process's
		const arch = process.arch === "arm64" ? "arm64" : "x64";
		const library = createHash("sha256").update(readFileSync(join(REPO_ROOT, `node_modules/@anthropic-ai/sandbox-runtime/vendor/seccomp/${arch}/apply-seccomp`))).digest("hex");
		const helper = join(sshd.root, ".cadre", `apply-seccomp-${arch}`);
		const hash = () => createHash("sha256").update(readFileSync(helper)).digest("hex");
		forgetRemoteSandboxFacts();
		expect((await probeWorkspaces({ w: spec }, ["w"])).w?.available).toBe(true);
		expect(hash()).toBe(library);
		const uploaded = statSync(helper).mtimeMs;
		forgetRemoteSandboxFacts();
		await probeWorkspaces({ w: spec }, ["w"]);
		expect(statSync(helper).mtimeMs).toBe(uploaded); // same hash: not uploaded again
		writeFileSync(helper, "#!/bin/sh\nexec \"$@\"\n"); // a helper that applies no filter
		forgetRemoteSandboxFacts();
		expect((await probeWorkspaces({ w: spec }, ["w"])).w?.available).toBe(true);
		expect(hash()).toBe(library);
	}, 20_000);
});

describe.skipIf(missing !== null)("an SSH workspace without bubblewrap", () => {
	let sshd: TestSshd;
	let spec: WorkspaceSpec;
	beforeAll(async () => {
		// the remote's PATH: every program of /usr/bin but bwrap (this machine's bwrap is /usr/bin/bwrap)
		const bin = temp("cadre-rs-bin-");
		for (const name of readdirSync("/usr/bin")) if (name !== "bwrap") symlinkSync(join("/usr/bin", name), join(bin, name));
		sshd = await startSshd({ setEnv: { PATH: `${bin}:/usr/sbin` } });
		spec = { type: "ssh", host: sshd.host, port: sshd.port, user: sshd.user, identityFile: sshd.identityFile, knownHosts: sshd.knownHosts, root: sshd.root, maxConcurrent: 2, source: "test" };
	}, 20_000);
	afterAll(async () => sshd?.stop());

	it("is probed as unable, and a child that must run sandboxed is refused before anything is made", async () => {
		forgetRemoteSandboxFacts();
		const facts = await probeWorkspaces({ bare: spec }, ["bare"]);
		expect(facts.bare).toMatchObject({ available: false, reason: expect.stringContaining("bwrap is not on PATH") });
		expect(facts.bare?.hint).toContain("install bubblewrap on 127.0.0.1");
		const parent = repo();
		const head = git(parent, "rev-parse", "HEAD");
		await expect(prepareRemoteChild({ name: "bare", spec, localRepo: parent, base: head, id: "strict", localCwd: parent, tools: ["bash"], sandbox: { readOnly: false, settings: noSettings() } })).rejects.toMatchObject({
			code: "sandbox-unavailable",
			message: expect.stringContaining("Spawn refused (sandbox-unavailable)"),
		});
		expect(existsSync(join(sshd.root, "worktrees", "strict"))).toBe(false);
	}, 20_000);
});

describe.skipIf(missing !== null)("an SSH workspace whose bubblewrap cannot start a sandbox", () => {
	let sshd: TestSshd;
	beforeAll(async () => {
		// a bwrap on PATH that fails as one does where user namespaces are not allowed
		const bin = temp("cadre-rs-fake-");
		writeFileSync(join(bin, "bwrap"), "#!/bin/sh\necho 'bwrap: No permissions to create a new namespace' >&2\nexit 1\n", { mode: 0o755 });
		sshd = await startSshd({ setEnv: { PATH: `${bin}:/usr/bin:/usr/sbin` } });
	}, 20_000);
	afterAll(async () => sshd?.stop());

	it("is probed as unable: being on PATH is not enough", async () => {
		forgetRemoteSandboxFacts();
		const spec: WorkspaceSpec = { type: "ssh", host: sshd.host, port: sshd.port, user: sshd.user, identityFile: sshd.identityFile, knownHosts: sshd.knownHosts, root: sshd.root, maxConcurrent: 2, source: "test" };
		const facts = await probeWorkspaces({ fake: spec }, ["fake"]);
		expect(facts.fake?.available).toBe(false);
		expect(facts.fake?.reason).toContain("cannot start a sandbox (bwrap: No permissions to create a new namespace)");
	}, 20_000);
});

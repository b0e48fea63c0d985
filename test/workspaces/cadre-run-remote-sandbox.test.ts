/**
 * Issue 25's remote sandbox through `cadre run` (the real bin, the chat-completions stub, real
 * sshds; ADR 0191): a read-only type on an SSH workspace keeps bash there because the remote's
 * bubblewrap sandboxes it — its command cannot write in its worktree nor read the remote user's
 * key — and its record says `sandboxed: true`; `sandbox: required` against a workspace whose PATH
 * has no bwrap is refused `sandbox-unavailable` with the install hint before any model call; and
 * `cadre explain` probes the workspace as a spawn would and says which.
 */
import { mkdirSync, mkdtempSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ChatServer, startChatServer } from "../support/chat-server.ts";
import { cadre, runRecords, runWorld } from "../support/cadre-run.ts";
import { sshdMissing, startSshd, type TestSshd } from "../support/sshd.ts";

const missing = sshdMissing();
const KEY_SECRET = "REMOTE-KEY-e02f";
const workspace = (sshd: TestSshd) => ({ type: "ssh", host: sshd.host, port: sshd.port, user: sshd.user, identityFile: sshd.identityFile, knownHosts: sshd.knownHosts, root: sshd.root, maxConcurrent: 2 });
const temp = (prefix: string) => mkdtempSync(join(process.env.TMPDIR ?? tmpdir(), prefix));

describe.skipIf(missing !== null)("cadre run: the sandbox on SSH workspaces", () => {
	let server: ChatServer;
	let box: TestSshd;
	let bare: TestSshd;
	beforeAll(async () => {
		server = await startChatServer(() => ({ text: "unscripted" }));
		const home = temp("cadre-rrs-home-");
		mkdirSync(join(home, ".ssh"));
		writeFileSync(join(home, ".ssh", "id_rsa"), `${KEY_SECRET}\n`);
		box = await startSshd({ setEnv: { HOME: home } });
		const bin = temp("cadre-rrs-bin-");
		for (const name of readdirSync("/usr/bin")) if (name !== "bwrap") symlinkSync(join("/usr/bin", name), join(bin, name));
		bare = await startSshd({ setEnv: { PATH: `${bin}:/usr/sbin` } });
	}, 20_000);
	afterAll(async () => {
		await server?.close();
		await box?.stop();
		await bare?.stop();
	});

	it("a read-only child keeps bash on a workspace that sandboxes: it cannot write nor read the remote key; the record says sandboxed", async () => {
		const reader = "---\nname: reader\ndescription: looks remotely\ncapability: read-only\ntools: read, bash\nworkspace: box\n---\nYou look.\n";
		const world = runWorld("run-remote-sbx-", server.baseUrl, { git: true, files: { "agent/subagents.json": JSON.stringify({ workspaces: { box: workspace(box) } }), "agent/agents/reader.md": reader } });
		server.setScript((request) =>
			request.step === 0
				? { toolCalls: [{ name: "bash", arguments: { command: "echo x > made.txt; echo wrote=$?; cat ~/.ssh/id_rsa; cat README.md" } }] }
				: { text: `saw: ${request.lastText}` },
		);
		const run = await cadre(world, ["run", "reader", "look around", "--json"], { timeoutMs: 18_000 });
		expect(run.code, run.stderr).toBe(0);
		const result = JSON.parse(run.stdout);
		expect(result.text).toContain("# project");
		expect(result.text).toMatch(/wrote=[1-9]/);
		expect(result.text).not.toContain(KEY_SECRET);
		expect(existsSync(join(box.root, "worktrees", result.id, "made.txt"))).toBe(false);
		const record = runRecords(world.agentDir).find((r) => r.id === result.id) as { config: { sandboxed?: boolean; tools: string[] } };
		expect(record.config.sandboxed).toBe(true);
		expect(record.config.tools).toContain("bash");
		// explain probes the workspace as a spawn would, and shows the remote policy
		const shown = await cadre(world, ["explain", "reader"], { timeoutMs: 15_000 });
		expect(shown.stdout).toContain("sandbox: sandboxed on the remote");
		expect(shown.stdout).toContain("box: its bubblewrap works");
		expect(shown.stdout).toContain(join(box.root, "worktrees", "<id>"));
	}, 20_000);

	it("refuses sandbox: required on a workspace without bubblewrap, with the install hint, before any model call", async () => {
		const strict = "---\nname: strict\ndescription: must be sandboxed\ntools: read, bash\nsandbox: required\nworkspace: bare\n---\nYou work.\n";
		const world = runWorld("run-remote-bare-", server.baseUrl, { git: true, files: { "agent/subagents.json": JSON.stringify({ workspaces: { bare: workspace(bare) } }), "agent/agents/strict.md": strict } });
		const before = server.requests.length;
		const run = await cadre(world, ["run", "strict", "anything"], { timeoutMs: 15_000 });
		expect(run.code).not.toBe(0);
		expect(run.stderr).toContain("sandbox-unavailable");
		// refused by the resolution (the spawner probed the workspace first), not only when the child is prepared
		expect(run.stderr).toContain("sandbox: required (");
		expect(run.stderr).toContain("bwrap is not on PATH on 127.0.0.1");
		expect(run.stderr).toContain("install bubblewrap on 127.0.0.1");
		expect(server.requests.length).toBe(before);
		expect(existsSync(join(bare.root, "worktrees"))).toBe(false);
		const shown = await cadre(world, ["explain", "strict"], { timeoutMs: 15_000 });
		expect(shown.stdout + shown.stderr).toContain("sandbox-unavailable");
		expect(shown.stdout + shown.stderr).toContain("SSH workspace bare cannot sandbox: bwrap is not on PATH on 127.0.0.1");
	}, 20_000);
});

/**
 * Issue 25: worktree isolation across the wire, against a real sshd on 127.0.0.1. The workspace's
 * clone (kept between runs) is synced by bundle over the connection; the child works in a remote
 * worktree of the parent's commit, and its work — committed or not — arrives as the local branch
 * `cadre/<id>`. Killing the server mid-run fails the tool call in flight clearly, the link reports
 * `workspace-lost` after the grace period, the remote work is kept, and recovering fetches it.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { remoteOps } from "../../src/workspaces/remote-fs.ts";
import { clonePath, commitRemoteWork, createRemoteWorktree, fetchRemoteBranch, finishRemoteWorktree, reopenRemoteWorktree } from "../../src/workspaces/remote-worktree.ts";
import type { SshTarget } from "../../src/workspaces/ssh-connection.ts";
import { openWorkspaceLink } from "../../src/workspaces/workspace-link.ts";
import { sshdMissing, startSshd, type TestSshd } from "../support/sshd.ts";

const missing = sshdMissing();
const git = (cwd: string, ...args: string[]) => execFileSync("git", args, { cwd, encoding: "utf8", env: { ...process.env, GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@t" } }).trim();

function repo(): string {
	const dir = mkdtempSync(join(process.env.TMPDIR ?? tmpdir(), "cadre-parent-"));
	git(dir, "init", "-q", "-b", "main");
	writeFileSync(join(dir, "app.txt"), "v1\n");
	git(dir, "add", "-A");
	git(dir, "commit", "-q", "-m", "first");
	return dir;
}

describe.skipIf(missing !== null)("remote worktrees over a real sshd", () => {
	let sshd: TestSshd;
	let target: SshTarget;
	beforeAll(async () => {
		sshd = await startSshd();
		target = { name: "box", host: sshd.host, port: sshd.port, user: sshd.user, identityFile: sshd.identityFile, knownHosts: sshd.knownHosts };
	});
	afterAll(async () => sshd?.stop());

	it("a resume reopens a kept remote worktree as it was, and after its work came home starts a new one at the branch's tip", async () => {
		const parent = repo();
		const head = git(parent, "rev-parse", "HEAD");
		const link = await openWorkspaceLink(target);
		const connection = await link.connection();
		const wt = await createRemoteWorktree(connection, sshd.root, parent, "k1", head);
		writeFileSync(join(wt.dir, "unsaved.txt"), "left when the link was lost\n"); // the sshd is on this machine
		const kept = await reopenRemoteWorktree(connection, sshd.root, parent, "k1", head);
		expect(kept).toEqual(wt);
		expect(existsSync(join(kept.dir, "unsaved.txt"))).toBe(true);
		const { tip } = await finishRemoteWorktree(connection, sshd.root, parent, "k1", kept);
		expect(existsSync(wt.dir)).toBe(false); // its work is home: the remote tree went
		expect(git(parent, "show", "cadre/k1:unsaved.txt")).toBe("left when the link was lost");
		const again = await reopenRemoteWorktree(connection, sshd.root, parent, "k1", head);
		expect(again).toMatchObject({ dir: wt.dir, branch: "cadre/k1", base: tip });
		expect(existsSync(join(again.dir, "unsaved.txt"))).toBe(true);
		link.close();
	}, 20_000);

	it("runs the child in a remote worktree of the parent's commit and brings its work home as cadre/<id>", async () => {
		const parent = repo();
		const head = git(parent, "rev-parse", "HEAD");
		const link = await openWorkspaceLink(target);
		const connection = await link.connection();
		const wt = await createRemoteWorktree(connection, sshd.root, parent, "r1", head);
		const ops = remoteOps(() => link.connection(), { remoteDir: wt.dir, localCwd: parent });
		expect((await ops.readFile("app.txt")).toString()).toBe("v1\n");
		await ops.writeFile("app.txt", "v2 from remote\n");
		let out = "";
		await ops.exec("git -c user.name=c -c user.email=c@c commit -qam 'child edits app' && echo made > new.txt && hostname >/dev/null && echo done", ".", { onData: (d) => (out += d) });
		expect(out).toContain("done");
		const { tip, committed } = await finishRemoteWorktree(connection, sshd.root, parent, "r1", wt);
		expect(committed).toBe(true); // new.txt was left uncommitted
		expect(git(parent, "rev-parse", "cadre/r1")).toBe(tip);
		expect(git(parent, "show", "cadre/r1:app.txt")).toBe("v2 from remote");
		expect(git(parent, "show", "cadre/r1:new.txt")).toBe("made");
		expect(git(parent, "log", "--format=%s", "main..cadre/r1").split("\n")).toEqual(["cadre: uncommitted work of r1", "child edits app"]);
		// the parent's own files and branch are untouched
		expect(git(parent, "rev-parse", "main")).toBe(head);

		// the clone is kept: a second run after a new parent commit syncs only that
		writeFileSync(join(parent, "app.txt"), "v3\n");
		git(parent, "commit", "-qam", "second");
		const head2 = git(parent, "rev-parse", "HEAD");
		const wt2 = await createRemoteWorktree(connection, sshd.root, parent, "r2", head2);
		expect(wt2.clone).toBe(clonePath(sshd.root, parent));
		expect(await ops.readFile(join(parent, "app.txt")).catch(() => null)).toBeNull(); // r1's tree went once its work was home (ADR 0196)
		expect(existsSync(wt.dir)).toBe(false);
		const ops2 = remoteOps(() => link.connection(), { remoteDir: wt2.dir, localCwd: parent });
		expect((await ops2.readFile("app.txt")).toString()).toBe("v3\n");
		link.close();
	}, 20_000);

	it("fails the tool call when the server dies, reports workspace-lost after the grace, keeps the remote work, and recover fetches it", async () => {
		const parent = repo();
		const head = git(parent, "rev-parse", "HEAD");
		const link = await openWorkspaceLink(target, { graceMs: 1500, retryMs: 200, connect: { keepaliveInterval: 200, keepaliveCountMax: 2, readyTimeout: 1000 } });
		const wt = await createRemoteWorktree(await link.connection(), sshd.root, parent, "lost1", head);
		const ops = remoteOps(() => link.connection(), { remoteDir: wt.dir, localCwd: parent });
		await ops.writeFile("work.txt", "precious\n");
		let started!: () => void;
		const running = new Promise<void>((r) => (started = r));
		const inFlight = ops.exec("echo started; sleep 30", ".", { onData: (d) => String(d).includes("started") && started() });
		await running;
		inFlight.catch(() => {}); // handled from here on: the kill below rejects it
		await sshd.kill();
		await expect(inFlight).rejects.toThrow(/the SSH connection was lost/);
		await expect(ops.readFile("work.txt")).rejects.toMatchObject({ code: "workspace-disconnected", message: expect.stringContaining("this tool call did not run") });
		const lost = await link.lost;
		expect(lost.code).toBe("workspace-lost");
		expect(lost.message).toContain("cadre worktrees recover");
		await expect(link.connection()).rejects.toMatchObject({ code: "workspace-lost" });
		link.close();
		// the remote work is still there
		expect(existsSync(join(wt.dir, "work.txt"))).toBe(true);
		expect(() => git(parent, "rev-parse", "--verify", "-q", "cadre/lost1")).toThrow();

		await sshd.restart();
		const again = await openWorkspaceLink(target);
		const connection = await again.connection();
		await commitRemoteWork(connection, wt, "lost1");
		await fetchRemoteBranch(connection, sshd.root, parent, "lost1", head);
		expect(git(parent, "show", "cadre/lost1:work.txt")).toBe("precious");
		again.close();
	}, 20_000);
});

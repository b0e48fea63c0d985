/**
 * The pure parts of the remote sandbox (ADR 0191): the remote policy (writes, what is hidden and
 * re-opened, no network), the order bubblewrap gets the mounts in (a deeper mount lands on the one
 * it is inside), and the credential scrub — the shell loop the remote runs leaves exactly the
 * variables `sandboxEnvironment` keeps (run here in bash against the same environment).
 */
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { remoteReadable, remoteSandboxPolicy } from "../../src/resolve/remote-sandbox-policy.ts";
import { sandboxEnvironment, type SandboxPolicy } from "../../src/resolve/sandbox-policy.ts";
import { bwrapArgs, envScrub, mountsOf } from "../../src/workspaces/remote-sandbox.ts";

const settings = (more = {}) => ({ default: { value: "auto" as const, source: "default" }, denyRead: [], envAllow: [], allowNetwork: [], ...more });
const base = { tools: ["bash", "read", "mcp_tool"], worktree: "/srv/cadre/worktrees/r1", clone: "/srv/cadre/repos/app-1.git", root: "/srv/cadre", helperDir: "/srv/cadre/.cadre", home: "/home/dev", tempDir: "/srv/cadre/tmp/sandbox-r1" };

describe("the remote policy", () => {
	it("writes the worktree and temp dir, hides the secrets and the rest of root, re-opens the clone and the helper", () => {
		const policy = remoteSandboxPolicy({ ...base, readOnly: false, settings: settings({ denyRead: ["~/work/keys", "private", "/etc/shadow"], allowNetwork: ["example.com"] }) });
		expect(policy.write).toEqual([base.worktree, base.tempDir]);
		expect(policy.denyRead).toEqual(expect.arrayContaining(["/home/dev/.ssh", "/home/dev/.aws", "/srv/cadre", "/home/dev/work/keys", "/srv/cadre/worktrees/r1/private", "/etc/shadow"]));
		expect(policy.allowRead).toEqual([base.worktree, base.clone, base.helperDir]);
		expect(policy.network).toEqual([]);
		expect(policy.networkRefused).toEqual(["example.com"]);
		expect(policy.outside).toEqual(["mcp_tool"]);
		expect(remoteReadable("/srv/cadre/worktrees/r1/app.txt", policy)).toBe(true);
		expect(remoteReadable("/srv/cadre/worktrees/other/app.txt", policy)).toBe(false);
		expect(remoteReadable("/srv/cadre/repos/app-1.git/HEAD", policy)).toBe(true);
		expect(remoteReadable("/srv/cadre/tmp/back-x.bundle", policy)).toBe(false);
		expect(remoteReadable("/srv/cadre/worktrees/r1/private/a", policy)).toBe(false);
		expect(remoteReadable("/home/dev/.ssh/id_rsa", policy)).toBe(false);
	});

	it("a read-only child writes nothing and has no temp dir", () => {
		const policy = remoteSandboxPolicy({ ...base, readOnly: true, tempDir: null, settings: settings() });
		expect(policy.write).toEqual([]);
		expect(policy.tempDir).toBeNull();
	});
});

describe("the bubblewrap argv", () => {
	it("mounts shallow first: the tmpfs over root before the worktree, clone and temp dir bound again; a denied path inside the worktree after it", () => {
		const mounts = mountsOf({
			write: [base.worktree, base.tempDir],
			denied: [
				{ path: "/srv/cadre/worktrees/r1/private", dir: true },
				{ path: "/srv/cadre", dir: true },
				{ path: "/home/dev/.netrc", dir: false },
			],
			allowRead: [base.worktree, base.clone, base.helperDir],
			protect: ["/srv/cadre/worktrees/r1/.git"],
			tempDir: base.tempDir,
		});
		const at = (path: string, kind: string) => mounts.findIndex((m) => m.path === path && m.kind === kind);
		expect(at("/srv/cadre", "tmpfs")).toBeLessThan(at(base.worktree, "bind"));
		expect(at("/srv/cadre", "tmpfs")).toBeLessThan(at(base.clone, "ro"));
		expect(at("/srv/cadre", "tmpfs")).toBeLessThan(at(base.tempDir, "bind"));
		expect(at(base.worktree, "bind")).toBeLessThan(at("/srv/cadre/worktrees/r1/private", "tmpfs"));
		expect(at(base.worktree, "bind")).toBeLessThan(at("/srv/cadre/worktrees/r1/.git", "ro"));
		// the worktree is written, not re-opened read-only as well
		expect(at(base.worktree, "ro")).toBe(-1);
		expect(mounts.find((m) => m.path === "/home/dev/.netrc")?.kind).toBe("null");
		const args = bwrapArgs({ write: [base.worktree], denied: [], allowRead: [], protect: [], tempDir: base.tempDir }, ["--cap-drop", "ALL"]);
		expect(args.slice(0, 6)).toEqual(["--new-session", "--die-with-parent", "--unshare-net", "--ro-bind", "/", "/"]);
		expect(args).toEqual(expect.arrayContaining(["--unshare-pid", "--unshare-user", "--cap-drop", "ALL", "--proc", "/proc"]));
		expect(args.slice(-3)).toEqual(["--setenv", "TMPDIR", base.tempDir]);
	});
});

describe("the credential scrub on the remote", () => {
	it("leaves exactly what sandboxEnvironment keeps, allow-list included", () => {
		const env = { PATH: process.env.PATH ?? "/usr/bin", HOME: "/home/dev", OPENAI_API_KEY: "k", github_token: "t", AWS_REGION: "eu", MY_SECRET_THING: "s", SSH_AUTH_SOCK: "/tmp/a", NPM_TOKEN: "n", LANG: "C", KEEP_TOKEN: "kept" };
		const policy = { env: { deny: remoteSandboxPolicy({ ...base, readOnly: false, settings: settings() }).env.deny, allow: ["KEEP_TOKEN"] } } as SandboxPolicy;
		const out = execFileSync("bash", ["-c", `${envScrub(policy.env)}\nenv -0`], { env, encoding: "utf8" });
		const left = Object.fromEntries(
			out
				.split("\0")
				.filter(Boolean)
				.map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)]),
		);
		const expected = sandboxEnvironment(env, policy);
		for (const name of Object.keys(env)) expect({ name, kept: name in left }).toEqual({ name, kept: name in expected });
		expect(left.KEEP_TOKEN).toBe("kept");
		expect(left.OPENAI_API_KEY).toBeUndefined();
	});
});

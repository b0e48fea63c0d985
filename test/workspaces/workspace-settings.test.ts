/**
 * Issue 25: settings `workspaces` (user settings or a trusted project only — an untrusted
 * project's entry is a warning and never used), the `workspace` key of definitions and roles, and
 * its resolution: request > role > definition > local, an unknown name refused `workspace-unknown`.
 */
import { describe, expect, it } from "vitest";
import { resolve } from "../../src/resolve/resolve.ts";
import { explain, renderExplain } from "../../src/resolve/explain.ts";
import { layout, where } from "../files/fixture.ts";
import { entry, input, type LoadSpec, loaded, settings } from "../resolve/support/build.ts";
import type { WorkspaceSpec } from "../../src/files/types.ts";
import type { SandboxPlatform } from "../../src/resolve/types.ts";

const box = { type: "ssh", host: "127.0.0.1", port: 2222, user: "dev", identityFile: "/keys/id", knownHosts: "/keys/known_hosts", root: "/srv/cadre", maxConcurrent: 3 };
const user = (json: unknown) => ({ "agent/subagents.json": JSON.stringify(json) });
const projectSettings = (text: string) => ({ "project/.pi/subagents.json": text });

describe("settings workspaces", () => {
	it("reads a user's workspace, defaults port 22 and maxConcurrent 2", () => {
		const { port: _p, maxConcurrent: _m, ...bare } = box;
		const r = layout(user({ workspaces: { Build: box, small: bare } })).load();
		expect(r.diagnostics).toEqual([]);
		expect(r.settings.workspaces.build).toMatchObject({ ...box, source: expect.stringContaining("agent/subagents.json") });
		expect(r.settings.workspaces.small).toMatchObject({ port: 22, maxConcurrent: 2 });
		expect(r.settings.workspaces.small?.graceSeconds).toBeUndefined();
		expect(layout(user({ workspaces: { g: { ...box, graceSeconds: 5 } } })).load().settings.workspaces.g?.graceSeconds).toBe(5);
	});

	it("never uses an untrusted project's workspace: a warning at its key; a trusted project's counts", () => {
		const files = projectSettings(`{\n  "workspaces": {\n    "evil": ${JSON.stringify(box)}\n  }\n}\n`);
		const untrusted = layout(files).load();
		expect(untrusted.settings.workspaces).toEqual({});
		expect(where(untrusted)).toEqual([".pi/subagents.json:3:5 untrusted-setting"]);
		expect(layout(files).load({ projectTrusted: true }).settings.workspaces.evil?.host).toBe("127.0.0.1");
	});

	it("drops a workspace with a missing or invalid key whole, saying which", () => {
		const r = layout(user({ workspaces: { a: { ...box, knownHosts: undefined }, b: { ...box, port: "x" }, c: { ...box, root: "rel/dir" }, local: box } })).load();
		expect(r.settings.workspaces).toEqual({});
		const messages = r.diagnostics.map((d) => d.message).join("\n");
		expect(messages).toContain("workspaces.a has no knownHosts");
		expect(messages).toContain("workspaces.b.port expects a port number");
		expect(messages).toContain("workspaces.c.root expects an absolute path");
		expect(messages).toContain("reserved name local");
	});
});

const spec = (name: string): WorkspaceSpec => ({ ...box, type: "ssh", host: name, source: `settings:agent/subagents.json:2` });
const withWorkspaces = (more: Parameters<typeof loaded>[0] = {}) => loaded({ ...more, settings: settings({ workspaces: { a: spec("a"), b: spec("b") } }) });

describe("resolving workspace", () => {
	it("is local by default", () => {
		const result = resolve(input({ loaded: withWorkspaces() }));
		expect(result.refused).toBeNull();
		expect(result.config?.workspace).toEqual(["local"]);
		expect(result.trace.workspace?.layer).toBe("default");
	});

	it("takes the request over the role over the definition", () => {
		const worker = entry("definition", { name: "worker", keys: { workspace: ["a", "b"] } });
		const role = entry("role", { name: "worker", keys: { workspace: ["b"] } });
		expect(resolve(input({ type: "worker", loaded: withWorkspaces({ definitions: [worker] }) })).config?.workspace).toEqual(["a", "b"]);
		const byRole = resolve(input({ type: "worker", loaded: withWorkspaces({ definitions: [worker], roles: [role] }) }));
		expect(byRole.config?.workspace).toEqual(["b"]);
		expect(byRole.trace.workspace?.candidates.map((c) => [c.layer, c.outcome])).toEqual([
			["request", "not-named"],
			["definition", "overridden"],
			["default", "overridden"],
		]);
		const byRequest = resolve(input({ type: "worker", request: { prompt: "x", workspace: "A" }, loaded: withWorkspaces({ definitions: [worker], roles: [role] }) }));
		expect(byRequest.config?.workspace).toEqual(["a"]);
	});

	it("refuses a name settings do not define, listing the defined ones", () => {
		const worker = entry("definition", { name: "worker", keys: { workspace: ["a", "gpu"] } });
		const result = resolve(input({ type: "worker", loaded: withWorkspaces({ definitions: [worker] }) }));
		expect(result.refused?.code).toBe("workspace-unknown");
		expect(result.refused?.message).toContain("workspace gpu");
		expect(result.refused?.message).toContain("defined: local, a, b");
	});

	it("refuses a request workspace that is not a name as bad-request", () => {
		expect(resolve(input({ request: { prompt: "x", workspace: 3 }, loaded: withWorkspaces() })).refused?.code).toBe("bad-request");
	});

	it("shows in explain", () => {
		const worker = entry("definition", { name: "worker", keys: { workspace: ["a"] } });
		const output = explain(input({ type: "worker", loaded: withWorkspaces({ definitions: [worker] }) }));
		expect(renderExplain(output)).toMatch(/workspace\s+a\s/);
	});
});

describe("the sandbox on SSH workspaces (ADR 0191)", () => {
	const platform: SandboxPlatform = { available: true, reason: null, hint: "" };
	const noLocal = { available: false, reason: "bwrap is not on PATH", hint: "install bubblewrap here" };
	const able = { a: { available: true, reason: null, hint: "" } };
	const unable = { a: { available: false, reason: "bwrap is not on PATH on a", hint: "install bubblewrap on a (Debian/Ubuntu: apt-get install -y bubblewrap)" } };
	const reader = entry("definition", { name: "reader", keys: { capability: "read-only", tools: ["read", "grep", "bash"], workspace: ["a"] } });
	const strict = entry("definition", { name: "strict", keys: { sandbox: "required", workspace: ["a"] } });
	const parentWith = (remoteSandbox?: Record<string, typeof platform>, sandbox = platform) => ({ ...input().parent, sandbox, ...(remoteSandbox ? { remoteSandbox } : {}) });

	it("counts a remote child as sandboxed where the workspace's bubblewrap works (or is not probed yet): a read-only child keeps bash", () => {
		const files = withWorkspaces({ definitions: [reader] });
		for (const facts of [able, undefined]) {
			const result = resolve(input({ type: "reader", loaded: files, parent: parentWith(facts) }));
			expect(result.refused).toBeNull();
			expect(result.config?.sandboxed).toBe(true);
			expect(result.config?.tools).toContain("bash");
			expect(result.diagnostics.filter((d) => d.code === "sandbox-unavailable")).toEqual([]);
		}
		// the local platform is not asked for a child that runs only there
		expect(resolve(input({ type: "reader", loaded: files, parent: parentWith(able, noLocal) })).config?.sandboxed).toBe(true);
	});

	it("auto on a workspace without a working bubblewrap: warns, runs unsandboxed there, a read-only child without bash", () => {
		const remote = resolve(input({ type: "reader", loaded: withWorkspaces({ definitions: [reader] }), parent: parentWith(unable) }));
		expect(remote.refused).toBeNull();
		expect(remote.config?.sandboxed).toBe(false);
		expect(remote.config?.tools).not.toContain("bash");
		const warning = remote.diagnostics.find((d) => d.code === "sandbox-unavailable");
		expect(warning?.message).toContain("SSH workspace a cannot sandbox: bwrap is not on PATH on a");
		expect(warning?.hint).toContain("install bubblewrap on a");
	});

	it("required refuses sandbox-unavailable on a workspace that cannot, with the install hint for its host", () => {
		const result = resolve(input({ type: "strict", loaded: withWorkspaces({ definitions: [strict] }), parent: parentWith(unable) }));
		expect(result.refused?.code).toBe("sandbox-unavailable");
		expect(result.refused?.message).toContain("SSH workspace a cannot sandbox");
		expect(result.refused?.message).toContain("install bubblewrap on a");
		expect(resolve(input({ type: "strict", loaded: withWorkspaces({ definitions: [strict] }), parent: parentWith(able) })).refused).toBeNull();
	});

	it("network asked for in settings is never opened on a remote: required refuses, auto warns and runs with none", () => {
		const networked = (definitions: LoadSpec["definitions"]) =>
			loaded({ definitions, settings: settings({ workspaces: { a: spec("a") }, sandbox: { default: { value: "auto", source: "default" }, denyRead: [], envAllow: [], allowNetwork: ["registry.npmjs.org"] } }) });
		const refused = resolve(input({ type: "strict", loaded: networked([strict]), parent: parentWith(able) }));
		expect(refused.refused?.code).toBe("sandbox-unavailable");
		expect(refused.refused?.message).toContain("cannot be honoured on SSH workspaces (a)");
		const warned = resolve(input({ type: "reader", loaded: networked([reader]), parent: parentWith(able) }));
		expect(warned.refused).toBeNull();
		expect(warned.config?.sandboxed).toBe(true);
		expect(warned.diagnostics.find((d) => d.code === "sandbox-unavailable")?.message).toContain("the child's commands there get no network");
	});

	it("explain shows sandboxed on the remote, with the remote policy, or not sandboxed there and why", () => {
		const files = withWorkspaces({ definitions: [reader] });
		const dirs = { homeDir: "/home/me", agentDir: "/home/me/.pi/agent" };
		const on = explain(input({ type: "reader", loaded: files, parent: parentWith(able) }), [], dirs);
		expect(on.sandbox?.remote?.workspaces).toEqual([{ name: "a", probe: "able" }]);
		expect(on.sandbox?.denyRead).toContain("~/.ssh");
		expect(on.sandbox?.denyRead).toContain("/srv/cadre");
		expect(on.sandbox?.allowRead).toContain("/srv/cadre/worktrees/<id>");
		const text = renderExplain(on);
		expect(text).toContain("sandbox: sandboxed on the remote");
		expect(text).toContain("a: its bubblewrap works");
		const off = renderExplain(explain(input({ type: "reader", loaded: files, parent: parentWith(unable) }), [], dirs));
		expect(off).toContain("sandbox: not sandboxed on the remote — SSH workspace a cannot sandbox: bwrap is not on PATH on a");
		expect(renderExplain(explain(input({ type: "reader", loaded: files, parent: parentWith() }), [], dirs))).toContain("a: not probed yet");
	});
});

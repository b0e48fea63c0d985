/**
 * Issue 25: settings `workspaces` (user settings or a trusted project only — an untrusted
 * project's entry is a warning and never used), the `workspace` key of definitions and roles, and
 * its resolution: request > role > definition > local, an unknown name refused `workspace-unknown`.
 */
import { describe, expect, it } from "vitest";
import { resolve } from "../../src/resolve/resolve.ts";
import { explain, renderExplain } from "../../src/resolve/explain.ts";
import { layout, where } from "../files/fixture.ts";
import { entry, input, loaded, settings } from "../resolve/support/build.ts";
import type { WorkspaceSpec } from "../../src/files/types.ts";

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

describe("the sandbox on SSH workspaces (not applied there yet)", () => {
	const platform = { available: true, reason: null, hint: "" };
	it("never counts a remote child as sandboxed: a read-only child gets no bash", () => {
		const reader = entry("definition", { name: "reader", keys: { capability: "read-only", tools: ["read", "grep", "bash"], workspace: ["a"] } });
		const local = entry("definition", { name: "reader-here", keys: { capability: "read-only", tools: ["read", "grep", "bash"] } });
		const files = withWorkspaces({ definitions: [reader, local] });
		const here = resolve(input({ type: "reader-here", loaded: files, parent: { ...input().parent, sandbox: platform } }));
		expect(here.config?.sandboxed).toBe(true);
		expect(here.config?.tools).toContain("bash");
		const remote = resolve(input({ type: "reader", loaded: files, parent: { ...input().parent, sandbox: platform } }));
		expect(remote.refused).toBeNull();
		expect(remote.config?.sandboxed).toBe(false);
		expect(remote.config?.tools).not.toContain("bash");
		expect(remote.diagnostics.map((d) => d.message).join("\n")).toContain("not applied on SSH workspaces (a)");
	});

	it("refuses sandbox: required on a remote workspace", () => {
		const strict = entry("definition", { name: "strict", keys: { sandbox: "required", workspace: ["a"] } });
		const result = resolve(input({ type: "strict", loaded: withWorkspaces({ definitions: [strict] }), parent: { ...input().parent, sandbox: platform } }));
		expect(result.refused?.code).toBe("sandbox-unavailable");
		expect(result.refused?.message).toContain("SSH workspaces");
	});
});

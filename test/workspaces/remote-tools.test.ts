/**
 * Issue 25: pi's read, write, edit, ls, find, grep and bash of a child run on the SSH workspace
 * (a real sshd on 127.0.0.1), confined to its remote working tree — `..`, other absolute paths and
 * a symbolic link leading out are refused — and local paths under the child's cwd are mapped there.
 */
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ToolDefinition } from "@earendil-works/pi-coding-agent";
import { remoteTools } from "../../src/runtime/pi/remote-tools.ts";
import { remoteOps } from "../../src/workspaces/remote-fs.ts";
import { connectSsh, type SshConnection } from "../../src/workspaces/ssh-connection.ts";
import { sshdMissing, startSshd, type TestSshd } from "../support/sshd.ts";

const missing = sshdMissing();

describe.skipIf(missing !== null)("remote tools over a real sshd", () => {
	let sshd: TestSshd;
	let connection: SshConnection;
	let tools: Map<string, ToolDefinition>;
	let dir: string;
	beforeAll(async () => {
		sshd = await startSshd();
		connection = await connectSsh({ name: "box", host: sshd.host, port: sshd.port, user: sshd.user, identityFile: sshd.identityFile, knownHosts: sshd.knownHosts });
		// the "remote" is this machine: the tree is a folder the test can look into
		dir = join(sshd.root, "tree");
		mkdirSync(join(dir, "src"), { recursive: true });
		writeFileSync(join(dir, "src", "a.ts"), "export const a = 1;\n");
		writeFileSync(join(sshd.root, "secret.txt"), "outside\n");
		symlinkSync(join(sshd.root, "secret.txt"), join(dir, "link.txt"));
		const ops = remoteOps(async () => connection, { remoteDir: dir, localCwd: "/local/project" });
		tools = new Map(remoteTools({ tools: ["read", "write", "edit", "ls", "find", "grep", "bash"], ops, workspace: "box" }).map((t) => [t.name, t]));
	});
	afterAll(async () => {
		connection?.close();
		await sshd?.stop();
	});

	const call = async (name: string, params: Record<string, unknown>) => {
		const tool = tools.get(name) as ToolDefinition;
		const result = await tool.execute("id", params as never, undefined, undefined, undefined as never);
		return (result.content as { type: string; text?: string }[]).map((c) => c.text ?? "").join("");
	};

	it("reads, writes, edits, lists, finds, greps and runs commands in the remote tree", async () => {
		expect(await call("read", { path: "src/a.ts" })).toContain("export const a = 1;");
		await call("write", { path: "src/b.ts", content: "export const b = 2;\n" });
		expect(readFileSync(join(dir, "src", "b.ts"), "utf8")).toBe("export const b = 2;\n");
		await call("edit", { path: "/local/project/src/a.ts", edits: [{ oldText: "a = 1", newText: "a = 10" }] });
		expect(readFileSync(join(dir, "src", "a.ts"), "utf8")).toBe("export const a = 10;\n");
		expect(await call("ls", { path: "src" })).toMatch(/a\.ts[\s\S]*b\.ts/);
		expect(await call("find", { pattern: "*.ts" })).toMatch(/src\/a\.ts[\s\S]*src\/b\.ts|src\/b\.ts[\s\S]*src\/a\.ts/);
		expect(await call("grep", { pattern: "const b" })).toContain("b.ts:1:export const b = 2;");
		expect(await call("bash", { command: "pwd; echo hi > made.txt; exit 0" })).toContain(dir);
		expect(existsSync(join(dir, "made.txt"))).toBe(true);
	});

	it("refuses paths outside the tree: .., other absolute paths, and a symbolic link leading out", async () => {
		await expect(call("read", { path: "../secret.txt" })).rejects.toThrow(/outside/);
		await expect(call("read", { path: join(sshd.root, "secret.txt") })).rejects.toThrow(/outside the child's remote working tree/);
		await expect(call("read", { path: "link.txt" })).rejects.toThrow(/outside/);
		await expect(call("write", { path: "/etc/cadre-test", content: "x" })).rejects.toThrow(/outside/);
		expect(existsSync("/etc/cadre-test")).toBe(false);
	});
});

/**
 * Issue 25: the SSH transport against a real OpenSSH server on 127.0.0.1 (test/support/sshd.ts):
 * commands run on channels of one connection, the host key must match knownHosts (a wrong or
 * missing key is refused `workspace-untrusted-host`, never trusted on first use), and a lost
 * connection fails the call in flight with a clear error.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkHostKey } from "../../src/workspaces/known-hosts.ts";
import { connectSsh, type SshTarget } from "../../src/workspaces/ssh-connection.ts";
import { createHmac, randomBytes } from "node:crypto";
import { sshdMissing, startSshd, type TestSshd } from "../support/sshd.ts";

const missing = sshdMissing();
if (missing) console.warn(`skipping SSH workspace tests: ${missing}`);

describe.skipIf(missing !== null)("SSH connection to a real sshd", () => {
	let sshd: TestSshd;
	let target: SshTarget;
	beforeAll(async () => {
		sshd = await startSshd();
		target = { name: "box", host: sshd.host, port: sshd.port, user: sshd.user, identityFile: sshd.identityFile, knownHosts: sshd.knownHosts };
	});
	afterAll(async () => sshd?.stop());

	it("runs commands on channels of one connection, with stdin and exit codes", async () => {
		const connection = await connectSsh(target);
		const [a, b] = await Promise.all([connection.exec("echo one"), connection.exec("cat; exit 3", { stdin: "two" })]);
		expect(a.stdout.toString()).toBe("one\n");
		expect(b).toMatchObject({ code: 3 });
		expect(b.stdout.toString()).toBe("two");
		connection.close();
	});

	it("refuses a host whose key differs from knownHosts, and one knownHosts does not list", async () => {
		await expect(connectSsh({ ...target, knownHosts: sshd.wrongKnownHosts })).rejects.toMatchObject({ code: "workspace-untrusted-host", message: expect.stringMatching(/differs from the one in .*wrong_known_hosts/) });
		const empty = join(sshd.root, "..", "empty_known_hosts");
		writeFileSync(empty, "");
		await expect(connectSsh({ ...target, knownHosts: empty })).rejects.toMatchObject({ code: "workspace-untrusted-host", message: expect.stringContaining("is not in") });
		// and nothing was added to the file (no trust on first use)
		await expect(connectSsh({ ...target, knownHosts: empty })).rejects.toMatchObject({ code: "workspace-untrusted-host" });
	});

	it("fails the command in flight with a clear error when the server goes away", async () => {
		const connection = await connectSsh(target, { keepaliveInterval: 200, keepaliveCountMax: 2 });
		// killed once the command runs (not while the remote shell still starts up)
		let started!: () => void;
		const running = new Promise<void>((r) => (started = r));
		const pending = connection.exec("echo started; sleep 30", { onData: (d) => String(d).includes("started") && started() });
		await running;
		pending.catch(() => {}); // handled from here on: the kill below rejects it
		await sshd.kill();
		await expect(pending).rejects.toMatchObject({ code: "workspace-disconnected", message: expect.stringContaining("the SSH connection was lost") });
		await expect(connection.exec("true")).rejects.toMatchObject({ code: "workspace-disconnected" });
		await sshd.restart();
	}, 15_000);
});

describe("known_hosts matching", () => {
	const key = randomBytes(51);
	const line = (hosts: string, blob = key) => `${hosts} ssh-ed25519 ${blob.toString("base64")}\n`;
	it("matches plain, bracketed-port, hashed and wildcard names, and honours negation and @revoked", () => {
		expect(checkHostKey(line("example.org,10.0.0.1"), "10.0.0.1", 22, key)).toEqual({ ok: true });
		expect(checkHostKey(line("[10.0.0.1]:2222"), "10.0.0.1", 2222, key)).toEqual({ ok: true });
		expect(checkHostKey(line("10.0.0.1"), "10.0.0.1", 2222, key)).toMatchObject({ ok: false, reason: "unknown-host" });
		const salt = randomBytes(20);
		const hash = createHmac("sha1", salt).update("[h]:2200").digest("base64");
		expect(checkHostKey(line(`|1|${salt.toString("base64")}|${hash}`), "h", 2200, key)).toEqual({ ok: true });
		expect(checkHostKey(line("*.lan,!evil.lan"), "evil.lan", 22, key)).toMatchObject({ ok: false, reason: "unknown-host" });
		expect(checkHostKey(line("*.lan"), "a.lan", 22, key)).toEqual({ ok: true });
		expect(checkHostKey(line("h", randomBytes(51)), "h", 22, key)).toMatchObject({ ok: false, reason: "mismatch", fingerprint: expect.stringMatching(/^SHA256:/) });
		expect(checkHostKey(line("h") + `@revoked ${line("h")}`, "h", 22, key)).toMatchObject({ ok: false, reason: "revoked" });
	});
});

/**
 * The host-key check of an SSH workspace (issue 25, ADR 0181): the key the server shows must be in
 * the workspace's `knownHosts` file (OpenSSH known_hosts format: plain and hashed `|1|salt|hash`
 * host names, `[host]:port` for ports other than 22, `*`/`?` patterns, `!` negation, `@revoked`).
 * Nothing is ever added to the file: a host not listed is refused, never trusted on first use.
 */
import { createHash, createHmac } from "node:crypto";

/** What the check found. */
export type HostKeyVerdict = { ok: true } | { ok: false; reason: "unknown-host" | "mismatch" | "revoked"; fingerprint: string };

/** `SHA256:…` of a raw public key blob, as `ssh-keygen -l` prints it. */
export function fingerprint(key: Buffer): string {
	return `SHA256:${createHash("sha256").update(key).digest("base64").replace(/=+$/, "")}`;
}

/** How known_hosts names a host on a port. */
export function hostName(host: string, port: number): string {
	return port === 22 ? host : `[${host}]:${port}`;
}

function globMatch(pattern: string, name: string): boolean {
	const rx = new RegExp(`^${pattern.replace(/[.+^${}()|[\]\\]/g, "\\$&").replaceAll("*", ".*").replaceAll("?", ".")}$`, "i");
	return rx.test(name);
}

function patternMatches(pattern: string, name: string): boolean {
	if (pattern.startsWith("|1|")) {
		const [, , salt, hash] = pattern.split("|");
		if (!salt || !hash) return false;
		return createHmac("sha1", Buffer.from(salt, "base64")).update(name).digest("base64") === hash;
	}
	return globMatch(pattern, name);
}

/** Whether a line's host field names `name` (a negated pattern that matches excludes it). */
function hostsMatch(field: string, name: string): boolean {
	let matched = false;
	for (const pattern of field.split(",")) {
		if (pattern.startsWith("!")) {
			if (patternMatches(pattern.slice(1), name)) return false;
		} else if (patternMatches(pattern, name)) matched = true;
	}
	return matched;
}

/** Checks the server's raw key blob against the text of a known_hosts file. */
export function checkHostKey(knownHostsText: string, host: string, port: number, key: Buffer): HostKeyVerdict {
	const name = hostName(host, port);
	const shown = key.toString("base64");
	let listed = false;
	let trusted = false;
	for (const raw of knownHostsText.split("\n")) {
		const line = raw.trim();
		if (line === "" || line.startsWith("#")) continue;
		const fields = line.split(/\s+/);
		const marker = fields[0]?.startsWith("@") ? fields.shift() : null;
		const [hosts, , blob] = fields;
		if (!hosts || !blob || marker === "@cert-authority" || !hostsMatch(hosts, name)) continue;
		if (marker === "@revoked") {
			if (blob === shown) return { ok: false, reason: "revoked", fingerprint: fingerprint(key) };
			continue;
		}
		listed = true;
		if (blob === shown) trusted = true;
	}
	if (trusted) return { ok: true };
	return { ok: false, reason: listed ? "mismatch" : "unknown-host", fingerprint: fingerprint(key) };
}

/**
 * The SSH transport of a workspace (issue 25, ADR 0181), on `ssh2` (pure JS; no system ssh): one
 * connection per host, a channel per command, keepalive so a dead peer is noticed. The host key
 * is checked against the workspace's `knownHosts` before anything is sent — absent or different
 * refuses with `WorkspaceError` `workspace-untrusted-host`, never trust on first use. A lost
 * connection fails whatever is in flight with a clear error (`workspace-disconnected`); the next
 * call reconnects.
 */
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { Client, type ClientChannel, type SFTPWrapper } from "ssh2";
import { checkHostKey, hostName } from "./known-hosts.ts";

/** Where and as whom to connect (a settings workspace's connection keys). */
export interface SshTarget {
	/** The workspace's name, for messages. */
	name: string;
	host: string;
	port: number;
	user: string;
	identityFile: string;
	knownHosts: string;
}

export type WorkspaceErrorCode = "workspace-untrusted-host" | "workspace-unreachable" | "workspace-disconnected" | "workspace-lost";

/** A failure of a workspace a user can act on: `code` says which. */
export class WorkspaceError extends Error {
	readonly code: WorkspaceErrorCode;
	constructor(code: WorkspaceErrorCode, message: string) {
		super(message);
		this.code = code;
		this.name = "WorkspaceError";
	}
}

/** What one remote command did. */
export interface ExecResult {
	code: number | null;
	stdout: Buffer;
	stderr: Buffer;
}

export interface ExecOptions {
	/** Written to the command's stdin, which is then closed. */
	stdin?: Buffer | string;
	/** Streams stdout and stderr as they arrive (stdout/stderr in the result stay empty). */
	onData?: (data: Buffer) => void;
	signal?: AbortSignal;
	/** Seconds; the channel is closed when it passes and the call fails `timeout:N`. */
	timeout?: number;
}

/** Options of a connection (tests shorten them). */
export interface ConnectOptions {
	/** ms between keepalive probes (5000). */
	keepaliveInterval?: number;
	/** Unanswered probes before the connection counts as dead (3). */
	keepaliveCountMax?: number;
	/** ms to wait for the handshake (10000). */
	readyTimeout?: number;
}

const expandHome = (path: string) => (path.startsWith("~/") ? `${process.env.HOME ?? homedir()}${path.slice(1)}` : path);

/** `'…'` for a POSIX shell. */
export function shq(text: string): string {
	return `'${text.replaceAll("'", `'\\''`)}'`;
}

/** One open SSH connection to a workspace's host. */
export interface SshConnection {
	readonly target: SshTarget;
	/** Whether the connection is still up. */
	readonly alive: boolean;
	/** Runs `command` through the remote user's shell on a new channel. */
	exec(command: string, options?: ExecOptions): Promise<ExecResult>;
	/** The connection's SFTP session (opened once). */
	sftp(): Promise<SFTPWrapper>;
	/** Called once when the connection ends, whatever the reason. */
	onClose(listener: (error: Error | null) => void): void;
	close(): void;
}

function lost(target: SshTarget, why: string): WorkspaceError {
	return new WorkspaceError("workspace-disconnected", `workspace ${target.name} (${target.user}@${hostName(target.host, target.port)}): the SSH connection was lost (${why}); the tool call did not complete — retry it once the host is back`);
}

/** Opens a connection; rejects `workspace-untrusted-host` when the host key is not the known one. */
export async function connectSsh(target: SshTarget, options: ConnectOptions = {}): Promise<SshConnection> {
	const client = new Client();
	let knownText: string;
	let privateKey: Buffer;
	try {
		knownText = readFileSync(expandHome(target.knownHosts), "utf8");
	} catch (error) {
		throw new WorkspaceError("workspace-untrusted-host", `workspace ${target.name}: its knownHosts ${target.knownHosts} cannot be read (${(error as Error).message}); cadre never trusts a host key on first use — write the host's key there (ssh-keyscan -p ${target.port} ${target.host} >> ${target.knownHosts}, after checking its fingerprint)`);
	}
	try {
		privateKey = readFileSync(expandHome(target.identityFile));
	} catch (error) {
		throw new WorkspaceError("workspace-unreachable", `workspace ${target.name}: its identityFile ${target.identityFile} cannot be read (${(error as Error).message})`);
	}
	let refusal: WorkspaceError | null = null;
	const closeListeners: ((error: Error | null) => void)[] = [];
	let alive = false;
	let lastError: Error | null = null;
	let sftp: Promise<SFTPWrapper> | null = null;
	const channels = new Set<{ fail(error: Error): void }>();
	await new Promise<void>((resolve, reject) => {
		client.once("ready", () => {
			alive = true;
			resolve();
		});
		client.once("error", (error) => reject(refusal ?? new WorkspaceError("workspace-unreachable", `workspace ${target.name} (${target.user}@${hostName(target.host, target.port)}): cannot connect: ${error.message}`)));
		client.connect({
			host: target.host,
			port: target.port,
			username: target.user,
			privateKey,
			keepaliveInterval: options.keepaliveInterval ?? 5000,
			keepaliveCountMax: options.keepaliveCountMax ?? 3,
			readyTimeout: options.readyTimeout ?? 10_000,
			hostVerifier: (key: Buffer) => {
				const verdict = checkHostKey(knownText, target.host, target.port, key);
				if (verdict.ok) return true;
				const what = verdict.reason === "mismatch" ? "differs from the one in" : verdict.reason === "revoked" ? "is revoked in" : "is not in";
				refusal = new WorkspaceError(
					"workspace-untrusted-host",
					`workspace ${target.name}: the host key of ${hostName(target.host, target.port)} (${verdict.fingerprint}) ${what} ${target.knownHosts}; cadre never trusts a host key on first use — if the key is right, add it to that file`,
				);
				return false;
			},
		});
	});
	client.on("error", (error) => (lastError = error));
	client.on("close", () => {
		alive = false;
		const error = lost(target, lastError?.message ?? "closed by the host");
		for (const channel of [...channels]) channel.fail(error);
		for (const listener of closeListeners.splice(0)) listener(lastError);
	});
	return {
		target,
		get alive() {
			return alive;
		},
		exec(command, opts = {}) {
			if (!alive) return Promise.reject(lost(target, "not connected"));
			return new Promise<ExecResult>((resolve, reject) => {
				let done = false;
				let stream: ClientChannel | null = null;
				let timer: NodeJS.Timeout | undefined;
				const finish = (fn: () => void) => {
					if (done) return;
					done = true;
					if (timer) clearTimeout(timer);
					channels.delete(entry);
					opts.signal?.removeEventListener("abort", onAbort);
					fn();
				};
				const entry = { fail: (error: Error) => finish(() => reject(error)) };
				const onAbort = () => {
					stream?.close();
					finish(() => reject(new Error("aborted")));
				};
				channels.add(entry);
				if (opts.signal?.aborted) return onAbort();
				opts.signal?.addEventListener("abort", onAbort, { once: true });
				client.exec(command, (error, channel) => {
					if (error) return finish(() => reject(alive ? error : lost(target, error.message)));
					stream = channel;
					const out: Buffer[] = [];
					const err: Buffer[] = [];
					if (opts.timeout) {
						timer = setTimeout(() => {
							channel.close();
							finish(() => reject(new Error(`timeout:${opts.timeout}`)));
						}, opts.timeout * 1000);
					}
					channel.on("data", (data: Buffer) => (opts.onData ? opts.onData(data) : out.push(data)));
					channel.stderr.on("data", (data: Buffer) => (opts.onData ? opts.onData(data) : err.push(data)));
					channel.on("exit", (code: number | null, signal?: string) => {
						(channel as unknown as { exitCode: number | null }).exitCode = code ?? (signal ? 128 + 9 : null);
					});
					channel.on("close", () => {
						const code = (channel as unknown as { exitCode?: number | null }).exitCode ?? null;
						finish(() => resolve({ code, stdout: Buffer.concat(out), stderr: Buffer.concat(err) }));
					});
					if (opts.stdin !== undefined) channel.end(opts.stdin);
					else channel.end();
				});
			});
		},
		sftp() {
			sftp ??= new Promise<SFTPWrapper>((resolve, reject) => client.sftp((error, session) => (error ? reject(error) : resolve(session))));
			return sftp;
		},
		onClose(listener) {
			if (!alive) listener(lastError);
			else closeListeners.push(listener);
		},
		close() {
			client.end();
		},
	};
}

/** Runs a command and throws (with its stderr) unless it exits 0. */
export async function run(connection: SshConnection, command: string, options: ExecOptions = {}): Promise<Buffer> {
	const result = await connection.exec(command, options);
	if (result.code !== 0) {
		throw new Error(`workspace ${connection.target.name}: \`${command.length > 120 ? `${command.slice(0, 119)}…` : command}\` failed (exit ${result.code}): ${result.stderr.toString().trim()}`);
	}
	return result.stdout;
}

/**
 * A real OpenSSH server for tests (issue 25): `/usr/sbin/sshd` on 127.0.0.1 on a free port, as the
 * current user, with a temp `sshd_config`, a generated host key and user key (ssh-keygen) and an
 * `authorized_keys`; StrictModes and PAM off so it runs from a temp folder. `knownHosts` is a
 * known_hosts file holding the server's key under `[127.0.0.1]:PORT`. Tests skip (saying why) only
 * when sshd or ssh-keygen is absent; `.ci/run` installs `openssh-server`.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createConnection, createServer } from "node:net";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";

export const SSHD = "/usr/sbin/sshd";

/** Why sshd tests cannot run here, or null when they can. */
export function sshdMissing(): string | null {
	if (!existsSync(SSHD)) return `${SSHD} is not installed (Debian: apt-get install openssh-server)`;
	try {
		execFileSync("ssh-keygen", ["-?"], { stdio: "ignore" });
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === "ENOENT") return "ssh-keygen is not on PATH";
	}
	// sshd checks its privilege-separation directory exists even when it runs as a normal user
	try {
		if (!existsSync("/run/sshd")) mkdirSync("/run/sshd", { recursive: true, mode: 0o755 });
	} catch (error) {
		return `/run/sshd is missing and cannot be created (${(error as Error).message}); create it as root`;
	}
	return null;
}

export interface TestSshd {
	host: "127.0.0.1";
	port: number;
	user: string;
	/** The user's private key. */
	identityFile: string;
	/** A known_hosts file with this server's host key. */
	knownHosts: string;
	/** A known_hosts file with some other key for the same address (the wrong host key). */
	wrongKnownHosts: string;
	/** A fresh directory for the workspace's `root`. */
	root: string;
	/** Kills the server (SIGKILL): existing connections drop. */
	kill(): Promise<void>;
	/** Starts it again on the same port with the same keys. */
	restart(): Promise<void>;
	/** Stops it for good. */
	stop(): Promise<void>;
}

function keygen(path: string): string {
	execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", "cadre-test", "-f", path], { stdio: "ignore" });
	return readFileSync(`${path}.pub`, "utf8").trim();
}

async function freePort(): Promise<number> {
	return await new Promise((resolve, reject) => {
		const server = createServer();
		server.once("error", reject);
		server.listen(0, "127.0.0.1", () => {
			const port = (server.address() as { port: number }).port;
			server.close(() => resolve(port));
		});
	});
}

async function listening(port: number, deadline: number): Promise<void> {
	while (Date.now() < deadline) {
		const ok = await new Promise<boolean>((resolve) => {
			const socket = createConnection({ host: "127.0.0.1", port });
			socket.once("connect", () => {
				socket.destroy();
				resolve(true);
			});
			socket.once("error", () => resolve(false));
		});
		if (ok) return;
		await new Promise((r) => setTimeout(r, 50));
	}
	throw new Error(`sshd did not listen on 127.0.0.1:${port}`);
}

/** Every process below `pid` (from /proc), deepest last. */
function descendants(pid: number): number[] {
	const parents = new Map<number, number>();
	for (const name of readdirSync("/proc")) {
		if (!/^\d+$/.test(name)) continue;
		try {
			const stat = readFileSync(`/proc/${name}/stat`, "utf8");
			const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
			parents.set(Number(name), ppid);
		} catch {}
	}
	const out: number[] = [];
	const walk = (parent: number) => {
		for (const [child, ppid] of parents) {
			if (ppid === parent) {
				out.push(child);
				walk(child);
			}
		}
	};
	walk(pid);
	return out;
}

/** Options of {@link startSshd}. */
export interface SshdOptions {
	/** Variables set in every session (sshd_config `SetEnv`), e.g. a temp `HOME` or a `PATH` without bwrap. */
	setEnv?: Record<string, string>;
}

/** Starts an sshd; call `stop()` in afterAll. */
export async function startSshd(options: SshdOptions = {}): Promise<TestSshd> {
	const dir = mkdtempSync(join(process.env.TMPDIR ?? tmpdir(), "cadre-sshd-"));
	const hostKey = join(dir, "host_ed25519");
	const hostPub = keygen(hostKey);
	const otherPub = keygen(join(dir, "other_ed25519"));
	const identityFile = join(dir, "id_ed25519");
	const userPub = keygen(identityFile);
	writeFileSync(join(dir, "authorized_keys"), `${userPub}\n`);
	const port = await freePort();
	const [type, key] = hostPub.split(" ");
	const [otherType, otherKey] = otherPub.split(" ");
	const knownHosts = join(dir, "known_hosts");
	writeFileSync(knownHosts, `[127.0.0.1]:${port} ${type} ${key}\n`);
	const wrongKnownHosts = join(dir, "wrong_known_hosts");
	writeFileSync(wrongKnownHosts, `[127.0.0.1]:${port} ${otherType} ${otherKey}\n`);
	// Sessions get a HOME of their own unless the test gives one: the machine user's shell start-up
	// files (a pyenv init that rehashes, for one) are not the remote these tests mean, and a session
	// killed mid-rehash left its lock behind and hung every later login for a minute.
	const home = join(dir, "home");
	mkdirSync(home);
	const sessionEnv = { HOME: home, ...options.setEnv };
	const config = join(dir, "sshd_config");
	writeFileSync(
		config,
		[
			`Port ${port}`,
			"ListenAddress 127.0.0.1",
			`HostKey ${hostKey}`,
			`AuthorizedKeysFile ${join(dir, "authorized_keys")}`,
			`PidFile ${join(dir, "sshd.pid")}`,
			"StrictModes no",
			"UsePAM no",
			"PasswordAuthentication no",
			"KbdInteractiveAuthentication no",
			"PubkeyAuthentication yes",
			"PermitRootLogin prohibit-password",
			"MaxSessions 64",
			"MaxStartups 64",
			"Subsystem sftp internal-sftp",
			"LogLevel ERROR",
			`SetEnv ${Object.entries(sessionEnv).map(([name, value]) => `${name}="${value}"`).join(" ")}`,
			"",
		].join("\n"),
	);
	const root = join(dir, "remote");
	mkdirSync(root);
	let child: ChildProcess | null = null;
	const start = async () => {
		const proc = spawn(SSHD, ["-D", "-e", "-f", config], { stdio: ["ignore", "ignore", "pipe"] });
		let stderr = "";
		proc.stderr?.on("data", (chunk) => (stderr += String(chunk)));
		child = proc;
		try {
			await listening(port, Date.now() + 5000);
		} catch (error) {
			proc.kill("SIGKILL");
			throw new Error(`${(error as Error).message}: ${stderr}`);
		}
	};
	const kill = async () => {
		const proc = child;
		child = null;
		if (!proc || proc.exitCode !== null) return;
		// the per-connection sshd processes (and their commands) keep serving open connections:
		// end the server's descendants too, by pid
		const pids = descendants(proc.pid as number);
		const gone = new Promise((r) => proc.once("exit", r));
		proc.kill("SIGKILL");
		for (const pid of pids) {
			try {
				process.kill(pid, "SIGKILL");
			} catch {}
		}
		await gone;
	};
	await start();
	return { host: "127.0.0.1", port, user: userInfo().username, identityFile, knownHosts, wrongKnownHosts, root, kill, restart: start, stop: kill };
}

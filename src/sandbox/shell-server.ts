/**
 * The program one child's long-lived sandboxed shell runs inside its sandbox (ADR 0195): it reads
 * one JSON request per line on stdin (`run` a command, `kill` one) and answers one JSON line per
 * event on stdout (`out` chunks in base64, `exit`, `error`). Every command is its own `bash -c` in
 * its own process group, with the directory and environment its request names, so the child's
 * commands are what they were with one sandbox per command, and a kill reaches whatever the command
 * started. It runs under the parent's node with `-e`, so it is one self-contained function: it
 * imports nothing and receives `require`.
 *
 * The first request is the environment the host started it with: what the sandbox's wrap changed in
 * it (the library's proxy variables for a child with network, what it unset) is applied to every
 * command's environment after the request's own, as it was when the wrap ran each command.
 *
 * A command inside the sandbox can write to this program's stdin or stdout (it runs as the same user
 * in the same namespace): what it could forge is its own child's commands and output, which it
 * already controls; the host treats every line as untrusted (src/sandbox/sandbox-shell.ts).
 */

/** What the host sends (one per line). */
export type ShellRequest =
	| { t: "base"; env: Record<string, string> }
	| { t: "run"; id: number; command: string; cwd: string; env: Record<string, string> }
	| { t: "kill"; id: number };

/** What the program answers (one per line). */
export type ShellEvent =
	| { t: "ready" }
	| { t: "out"; id: number; d: string }
	| { t: "exit"; id: number; code: number | null; signal: string | null }
	| { t: "error"; id: number; message: string };

/** How long output may still arrive after a command's shell exited (pi's own grace, 100 ms). */
const EXIT_STDIO_GRACE_MS = 100;

/* v8 ignore start -- runs in the sandbox's own process; covered through the sandbox tests */
function serverMain(require: (name: string) => unknown, graceMs: number): void {
	const { spawn } = require("node:child_process") as typeof import("node:child_process");
	const { existsSync } = require("node:fs") as typeof import("node:fs");
	const shell = existsSync("/bin/bash") ? "/bin/bash" : "bash";
	const running = new Map<number, { pid: number | undefined }>();
	const send = (event: ShellEvent) => process.stdout.write(`${JSON.stringify(event)}\n`);
	const killGroup = (pid: number | undefined) => {
		if (pid === undefined) return;
		try {
			process.kill(-pid, "SIGKILL");
		} catch {
			// already gone
		}
	};
	const own = process.env as Record<string, string>;
	// What the shells that started this program set for themselves, not the wrap's policy.
	const SHELL_OWN = ["PWD", "OLDPWD", "SHLVL", "_"];
	let added: Record<string, string> = {};
	let removed: string[] = [];
	const setBase = (base: Record<string, string>) => {
		added = {};
		for (const [name, value] of Object.entries(own)) if (!name.startsWith("CADRE_SHELL_") && !SHELL_OWN.includes(name) && base[name] !== value) added[name] = value;
		removed = Object.keys(base).filter((name) => !(name in own));
	};
	const environment = (env: Record<string, string>) => {
		const out = { ...env, ...added };
		for (const name of removed) delete out[name];
		return out;
	};
	const run = (request: Extract<ShellRequest, { t: "run" }>) => {
		if (!existsSync(request.cwd)) {
			send({ t: "error", id: request.id, message: `Working directory does not exist: ${request.cwd}\nCannot execute bash commands.` });
			return;
		}
		const child = spawn(shell, ["-c", request.command], { cwd: request.cwd, env: environment(request.env), detached: true, stdio: ["ignore", "pipe", "pipe"] });
		running.set(request.id, { pid: child.pid });
		let exited = false;
		let settled = false;
		let code: number | null = null;
		let signal: string | null = null;
		let ended = 0;
		let timer: NodeJS.Timeout | undefined;
		const finish = () => {
			if (settled) return;
			settled = true;
			if (timer) clearTimeout(timer);
			running.delete(request.id);
			child.stdout.destroy();
			child.stderr.destroy();
			send({ t: "exit", id: request.id, code, signal });
		};
		const onData = (chunk: Buffer) => {
			send({ t: "out", id: request.id, d: chunk.toString("base64") });
			if (exited && !settled) {
				if (timer) clearTimeout(timer);
				timer = setTimeout(finish, graceMs);
			}
		};
		const onEnd = () => {
			ended++;
			if (exited && ended === 2) finish();
		};
		child.stdout.on("data", onData);
		child.stderr.on("data", onData);
		child.stdout.on("end", onEnd);
		child.stderr.on("end", onEnd);
		child.on("error", (error) => {
			if (settled) return;
			settled = true;
			running.delete(request.id);
			send({ t: "error", id: request.id, message: error.message });
		});
		child.on("exit", (exitCode, exitSignal) => {
			exited = true;
			code = exitCode;
			signal = exitSignal;
			if (ended === 2) finish();
			else timer = setTimeout(finish, graceMs);
		});
	};
	let buffered = "";
	process.stdin.setEncoding("utf8");
	process.stdin.on("data", (text: string) => {
		buffered += text;
		for (let newline = buffered.indexOf("\n"); newline >= 0; newline = buffered.indexOf("\n")) {
			const line = buffered.slice(0, newline);
			buffered = buffered.slice(newline + 1);
			let request: ShellRequest;
			try {
				request = JSON.parse(line) as ShellRequest;
			} catch {
				continue;
			}
			if (request.t === "base") setBase(request.env);
			else if (request.t === "run") run(request);
			else if (request.t === "kill") killGroup(running.get(request.id)?.pid);
		}
	});
	// The host went away: take every command with this program.
	process.stdin.on("end", () => {
		for (const { pid } of running.values()) killGroup(pid);
		process.exit(0);
	});
	send({ t: "ready" });
}
/* v8 ignore stop */

/** The program's source, for `node -e`. */
export function shellServerSource(): string {
	return `(${serverMain.toString()})(require, ${EXIT_STDIO_GRACE_MS});`;
}

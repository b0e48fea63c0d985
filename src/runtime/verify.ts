/**
 * A `verify` command cadre runs itself (issue 23): after a child finishes, in its working
 * directory, and by the merge queue on each merged tree. Only commands from trusted sources reach
 * here (user settings, a trusted project); this module only runs one and reports how it ended.
 */
import { runShell, type ShellRunner, type ShellWrap } from "./shell-command.ts";

/** A verify command as the files give it (`verify: "npm test"` or `{ command, timeoutSeconds }`). */
export interface VerifyCommand {
	command: string;
	timeoutMs: number;
}

/** How a verify command ended: the shape results, records and reports carry. */
export interface VerifyResult {
	command: string;
	/** The exit code; null when it was killed (a timeout) or could not start. */
	exitCode: number | null;
	/** Exit code 0 within the timeout. */
	ok: boolean;
	durationMs: number;
	/** The end of its combined stdout and stderr (at most {@link VERIFY_TAIL_CHARS}), with why it was killed when it was. */
	outputTail: string;
}

/** The default timeout of a verify command. */
export const DEFAULT_VERIFY_TIMEOUT_MS = 300_000;
/** How much of a verify command's output a result keeps. */
export const VERIFY_TAIL_CHARS = 4000;

/**
 * Runs `verify` through `/bin/sh -c` in `cwd` with `env` added (through `wrap`: in a child's
 * sandbox; through `runner`: where the child works, its SSH workspace); never rejects.
 */
export async function runVerify(verify: VerifyCommand, cwd: string, env: Record<string, string> = {}, wrap?: ShellWrap, runner: ShellRunner = runShell): Promise<VerifyResult> {
	const ran = await runner(verify.command, { cwd, env, timeoutMs: verify.timeoutMs, outputLimit: VERIFY_TAIL_CHARS, ...(wrap ? { wrap } : {}) });
	let outputTail = ran.output;
	if (ran.timedOut) outputTail = `${outputTail}\n[cadre] killed: did not finish within ${Math.round(verify.timeoutMs / 1000)} s`.trimStart();
	else if (ran.startError !== null) outputTail = `[cadre] could not start: ${ran.startError}`;
	else if (ran.signal) outputTail = `${outputTail}\n[cadre] killed by ${ran.signal}`.trimStart();
	const exitCode = ran.timedOut ? null : ran.exitCode;
	return { command: verify.command, exitCode, ok: exitCode === 0, durationMs: Math.round(ran.durationMs), outputTail: outputTail.slice(-VERIFY_TAIL_CHARS) };
}

/** One line about a verify result: `verify \`npm test\` passed (1.2 s)` / `FAILED (exit 1, 0.4 s)`. */
export function verifyLine(result: VerifyResult): string {
	const seconds = `${(result.durationMs / 1000).toFixed(1)} s`;
	if (result.ok) return `verify \`${result.command}\` passed (${seconds})`;
	const how = result.exitCode === null ? "no exit code" : `exit ${result.exitCode}`;
	return `verify \`${result.command}\` FAILED (${how}, ${seconds})`;
}

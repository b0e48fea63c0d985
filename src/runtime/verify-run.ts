/**
 * A run's own `verify` (issue 23, ADR 0117): after a child completes, cadre runs the command itself
 * in the child's cwd; when it fails, the child gets one repair turn with the output's tail (settings
 * `contracts.repair`, the contracts' repair-turn mechanism), and verify runs again. A run whose
 * verify still fails stays `completed`, with `verify.ok: false` for everyone to see.
 */
import type { ShellRunner, ShellWrap } from "./shell-command.ts";
import { runVerify, type VerifyCommand, type VerifyResult, verifyLine } from "./verify.ts";

/** What the run's verify found, with its repair turn. */
export interface VerifyOutcome extends VerifyResult {
	/** Null when verify passed at once; else whether a repair turn was sent and worked, or why none was. */
	repair: { steered: boolean; worked: boolean; skipped: string | null; first: VerifyResult | null } | null;
}

/** What `verifyRun` needs of the run. */
export interface VerifyRunOptions {
	verify: VerifyCommand;
	/** The child's cwd (its worktree when isolated). */
	cwd: string;
	/** The child's OS sandbox, when it ran in one: verify runs inside it (the child's writes, no credentials, no network). */
	sandbox?: ShellWrap;
	/** Where the command runs instead of this machine (a child on an SSH workspace: its remote worktree). */
	runner?: ShellRunner;
	runId: string;
	/** Why no repair turn is possible (settings off, no turns left), or null. */
	noRepair(): string | null;
	/** Sends the repair message as one more turn of the child and waits for its end. */
	repairTurn(message: string): Promise<void>;
	/** Called when the run's activity changes (`verify`, `repair turn (verify)`). */
	activity?(what: string): void;
}

/** The repair turn's message: the command, how it ended, the end of its output. */
export function verifyRepairMessage(result: VerifyResult): string {
	return [
		`[cadre] Your work did not pass verification: cadre ran \`${result.command}\` in your working directory and it ${result.exitCode === null ? "did not finish" : `exited with ${result.exitCode}`}.`,
		"The end of its output:",
		"```",
		result.outputTail || "(no output)",
		"```",
		"Fix the cause, then finish with your final answer. cadre runs the command again after this turn.",
	].join("\n");
}

/** Runs the verify, the repair turn when it fails and one is possible, and the verify again. */
export async function verifyRun(options: VerifyRunOptions): Promise<VerifyOutcome> {
	const env = { CADRE_RUN_ID: options.runId };
	options.activity?.("verify");
	const first = await runVerify(options.verify, options.cwd, env, options.sandbox, options.runner);
	if (first.ok) return { ...first, repair: null };
	const skipped = options.noRepair();
	if (skipped !== null) return { ...first, repair: { steered: false, worked: false, skipped, first: null } };
	options.activity?.("repair turn (verify)");
	await options.repairTurn(verifyRepairMessage(first));
	options.activity?.("verify");
	const again = await runVerify(options.verify, options.cwd, env, options.sandbox, options.runner);
	return { ...again, repair: { steered: true, worked: again.ok, skipped: null, first } };
}

/** The result text's line: `Verify: passed — …` or `Verify: FAILED — …` with the repair and the output's end. */
export function verifyResultText(outcome: VerifyOutcome): string {
	const repair = outcome.repair;
	const repairWords = !repair
		? ""
		: repair.steered
			? ` Repair turn: sent once; ${repair.worked ? "verify passed after it" : "verify still fails"}.`
			: ` No repair turn: ${repair.skipped}.`;
	if (outcome.ok) return `Verify: passed — ${verifyLine(outcome)}.${repairWords}`;
	return `Verify: FAILED — ${verifyLine(outcome)}.${repairWords}\nVerify output (end):\n${outcome.outputTail.split("\n").slice(-15).join("\n")}`;
}

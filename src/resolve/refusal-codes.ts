/**
 * Every code a spawn can be refused with, and what it means: the one list docs/resolution.md and
 * docs/cli-explain.md show (a test holds them to it). `explain` says whether `cadre explain`
 * reports the refusal too; the others refuse only when the spawn itself starts.
 */
import type { RefusalCode } from "./types.ts";

/** The codes: the resolver's, plus what a spawn refuses with once it starts, and `file-invalid` (issue 19). */
export type ListedRefusal = RefusalCode | "worktree-unavailable" | "file-invalid";

export interface RefusalMeaning {
	/** When it is returned, in one line. */
	when: string;
	/** Whether `cadre explain` reports it (else only `run`, the pi tool and `--batch` do). */
	explain: boolean;
}

/** Every refusal code, in the order docs list them. */
export const REFUSAL_CODES: Readonly<Record<ListedRefusal, RefusalMeaning>> = {
	"unknown-type": { when: "no definition has that name (the message lists the enabled types)", explain: true },
	"disabled-type": { when: "`enabled: false`, or settings `toggle` says so (a toggle can also re-enable)", explain: true },
	"file-invalid": { when: "a file the spawn would read has an error-severity diagnostic (the ones `cadre check` prints as `error`): the definition file(s) of the type — also one skipped whole for a syntax error, whose lower entry is then not used —, the type's role file, the spawn's persona file, a kind folder that cannot be read, or a `subagents.json` (every spawn reads settings). The message names each error's `file:line:col`, what is wrong and the fix. Warnings never refuse ([ADR 0100](decisions/0100-a-file-with-an-error-never-runs.md))", explain: true },
	"restriction-unread": {
		when: "the definition, the type's role or the spawn's persona has another tool's restricting key cadre cannot honour (the message names the key, `file:line:col` and the fix); a role's or definition's `capability`, `subagents` or `budget` that cannot be read, or a definition's unreadable `tools`",
		explain: true,
	},
	"bad-request": {
		when: "an invalid request value; `cwd` with a request `isolation: worktree`; a `cwd` that is not a directory, or outside the repository when worktree isolation comes from a lower layer",
		explain: true,
	},
	"persona-error": { when: "the named persona is missing, empty, or its `instructions_file` cannot be read", explain: true },
	"input-missing": { when: "a required input of the persona is absent or blank in the request (the message names it, its description and the persona's `file:line:col`)", explain: true },
	"input-invalid": { when: "a request input fails its `io_type` (a `file` that does not exist or leaves the project, JSON that does not parse, a URL that is not absolute, …)", explain: true },
	"output-schema-invalid": { when: "the definition's `output_schema` (or `output_schema_file`) is not a usable JSON Schema, or its file cannot be read", explain: true },
	"model-unresolvable": {
		when: "the request's model cannot be used, or no layer names a usable model (the message says, per layer, what it named and why that cannot be used)",
		explain: true,
	},
	"resume-refused": { when: "unknown or still running run id; a resume that changes type or persona; a run whose transcript is gone or that is being resumed already; a nested resume of a run outside the spawner's subtree", explain: true },
	"depth-exceeded": { when: "a nested spawn whose depth would pass settings `maxDepth`", explain: true },
	"type-not-allowed": { when: "a nested spawn of a type the spawning run's `subagents` does not list, or by a run that may not delegate", explain: true },
	"budget-exhausted": { when: "(at spawn, from the reservation) nothing remains of the parent's or the session's budget in a dimension it limits", explain: false },
	"sandbox-unavailable": { when: "the type asks for `sandbox: required` and this platform cannot sandbox (no bubblewrap, socat or ripgrep on Linux), or an SSH workspace it may run on has no working bubblewrap (probed on the host) or would need the network settings `sandbox.allowNetwork` opens; the message gives the install hint", explain: false },
	"workspace-unknown": { when: "the request, role or definition names a `workspace` that is neither `local` nor in settings `workspaces` (user settings or a trusted project; the message lists the defined ones)", explain: true },
	"workspace-untrusted-host": {
		when: "(at spawn) the SSH workspace's host key is not in its `knownHosts` file, or differs from it — never trusted on first use; the message gives the fingerprint and how to add it",
		explain: false,
	},
	"worktree-unavailable": { when: "the spawn asks for `isolation: worktree` and no worktree can be made (no git, not a repository, git failed); `explain` shows it as a warning", explain: false },
};

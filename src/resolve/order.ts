/**
 * The per-field precedence (spec 02 "Per field"), highest first: the one place every precedence
 * rule of cadre is written. Each resolution step puts its layers' slots in a field's order with
 * `pickIn`; nothing downstream re-applies a rule.
 */
import type { EffectiveConfig, Layer } from "./types.ts";

export const ORDER = {
	model: ["request", "role", "persona", "pin", "definition", "parent"],
	reasoningEffort: ["request", "role", "persona", "pin", "definition", "parent"],
	capabilityMode: ["request", "role", "definition"],
	// A definition's `worktree` is a floor below the request: a role's or persona's `none` cannot
	// lower it (ADR 0078). Its `none` stays at the plain definition place.
	isolation: ["request", "definition-floor", "role", "persona", "definition", "default"],
	// ADR 0087: the request, else settings `worktree.copyUncommitted`, else false.
	copyUncommitted: ["request", "default"],
	// ADR 0150: no request layer (a model cannot turn its own sandbox off).
	sandbox: ["role", "definition", "default"],
	persona: ["request", "definition"],
	outputSchema: ["request", "definition"],
	maxTurns: ["request", "definition", "default"],
	runInBackground: ["request", "definition", "default"],
	inheritContext: ["request", "definition", "default"],
	// Issue 21: the types a delegating child may spawn; default `*`.
	subagents: ["role", "definition", "default"],
	// Issue 22: per dimension; settings budget.ceiling and the spawning run then cap the winner.
	budget: ["request", "role", "definition", "default"],
	// issue 23, ADR 0117: never the request (a command the model could choose); from trusted files only.
	verify: ["role", "persona", "definition", "default"],
	// Issue 25, ADR 0180: where the child's tools run; the request may pick among what settings define.
	workspace: ["request", "role", "definition", "default"],
} as const satisfies Record<string, readonly Layer[]>;

/** Config fields in output order; the resolution's own diagnostics follow this order. */
export const CONFIG_FIELDS = [
	"model",
	"reasoningEffort",
	"capabilityMode",
	"persona",
	"personaInstructions",
	"rolePrompt",
	"rolePromptWarning",
	"roleName",
	"personaError",
	"inputs",
	"outputs",
	"outputSchema",
	"isolation",
	"copyUncommitted",
	"sandbox",
	"sandboxed",
	"tools",
	"maxTurns",
	"runInBackground",
	"inheritContext",
	"verify",
	"cwd",
	"standingInstructions",
	"definition",
	"depth",
	"delegation",
	"budget",
	"workspace",
] as const satisfies readonly (keyof EffectiveConfig)[];

export type Field = (typeof CONFIG_FIELDS)[number];

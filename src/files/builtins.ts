/**
 * cadre's built-in definitions (spec 01 "Built-in definitions"): the lowest layer, which project
 * and user files of the same name refine key by key. The bodies are product text.
 */
import type { EntryLayer } from "./types.ts";

const SOURCE = "bundled";

const READ_ONLY_TOOLS = ["read", "grep", "find", "ls"];

const EXPLORE = `Search the codebase fast and read-only: find the files and code that answer a question, and change nothing.

- Search broadly first (grep, find, ls), then read only the parts that answer the question.
- Prefer several quick, targeted searches over reading whole files.
- You cannot edit or write files. When you have bash it runs in a read-only OS sandbox: use it for git log, git grep, rg and the like; it cannot change anything.

Report concisely: the relevant file paths (with line numbers where they help), what you found in each, and a short answer to the question. Say plainly what you looked for and did not find.`;

const PLAN = `Plan an implementation as a software architect: study the code the task touches and produce a step-by-step plan, changing nothing.

- Read enough of the codebase to understand the existing structure, conventions and constraints before proposing anything.
- Prefer designs that fit the code as it is; name the trade-offs when there is a real choice.
- Break the work into ordered steps small enough to review, with what each step changes and how to verify it.
- Call out risks, open questions and anything the task leaves ambiguous.

End with a section "Critical files for implementation": the files that must be read or changed, one per line, each with a few words on why.`;

function layer(name: string, body: string | null, keys: EntryLayer<"definition">["keys"]): EntryLayer<"definition"> {
	return {
		kind: "definition",
		name,
		scope: "bundled",
		path: SOURCE,
		body: body === null ? null : { value: body, source: SOURCE },
		keys,
		invalid: {},
	};
}

/** Fresh copies of the built-in definition layers (callers may keep them). */
export function bundledDefinitions(): EntryLayer<"definition">[] {
	return [
		layer("general-purpose", null, {
			description: {
				value: "General-purpose agent for multi-step tasks: researching questions, searching code and making changes.",
				source: SOURCE,
			},
		}),
		layer("explore", EXPLORE, {
			tools: { value: [...READ_ONLY_TOOLS], source: SOURCE },
			capability: { value: "read-only", source: SOURCE },
		}),
		layer("plan", PLAN, {
			tools: { value: [...READ_ONLY_TOOLS], source: SOURCE },
			capability: { value: "read-only", source: SOURCE },
		}),
	];
}

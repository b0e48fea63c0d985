/**
 * What every resolution step of one spawn shares: the input, the definition and role it resolves,
 * the findings it adds to, and the readers of request values (an invalid request value is refused
 * as `bad-request`, spec 02 "Invalid values").
 */
import { type Entry } from "../files/types.ts";
import { isInherit } from "../core/values.ts";
import { FieldDiagnostics, Refusals } from "./findings.ts";
import type { Field } from "./order.ts";
import { NOT_NAMED, present, show, type Slot } from "./slots.ts";
import type { ResolveInput, SpawnRequest } from "./types.ts";

/** One spawn's resolution in progress. */
export interface ResolutionContext {
	input: ResolveInput;
	request: SpawnRequest;
	/** The type's name key (case-folded). */
	key: string;
	definition: Entry<"definition">;
	role: Entry<"role"> | null;
	diagnostics: FieldDiagnostics;
	refusals: Refusals;
	/** Refuses an invalid request value and returns its (invalid) slot. */
	badRequest(field: Field, requestKey: string, raw: unknown, valid: string): Slot;
	/** The request slot of an enumerated field (`inheritable`: "inherit" means not named). */
	enumRequest<T extends string>(field: Field, requestKey: keyof SpawnRequest, normalize: (raw: unknown) => T | null, allowed: readonly string[], inheritable: boolean): Slot;
	/** The request slot of a boolean field. */
	booleanRequest(field: Field, requestKey: keyof SpawnRequest): Slot;
}

/** The context for resolving `definition` (found under `key`) from `input`. */
export function createContext(input: ResolveInput, key: string, definition: Entry<"definition">): ResolutionContext {
	const diagnostics = new FieldDiagnostics();
	const refusals = new Refusals();
	const request = input.request;
	const badRequest = (field: Field, requestKey: string, raw: unknown, valid: string): Slot => {
		const message = `request ${requestKey} ${show(raw)} is not valid; valid values: ${valid}`;
		refusals.add("bad-request", message);
		diagnostics.add(field, { severity: "error", file: null, line: null, column: null, code: "bad-value", message, hint: `use one of: ${valid}` });
		return { layer: "request", state: "invalid", value: raw, source: "request" };
	};
	return {
		input,
		request,
		key,
		definition,
		role: input.loaded.roles.get(key) ?? null,
		diagnostics,
		refusals,
		badRequest,
		enumRequest(field, requestKey, normalize, allowed, inheritable) {
			const raw = request[requestKey];
			if (!present(raw) || (inheritable && isInherit(raw))) return NOT_NAMED("request");
			const value = normalize(raw);
			if (value === null) return badRequest(field, requestKey, raw, allowed.join(", ") + (inheritable ? ", inherit" : ""));
			return { layer: "request", state: "named", value, source: "request" };
		},
		booleanRequest(field, requestKey) {
			const raw = request[requestKey];
			if (!present(raw)) return NOT_NAMED("request");
			if (typeof raw !== "boolean") return badRequest(field, requestKey, raw, "true, false");
			return { layer: "request", state: "named", value: raw, source: "request" };
		},
	};
}

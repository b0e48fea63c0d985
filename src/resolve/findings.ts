/**
 * What a resolution finds besides the config: its own diagnostics, collected per field so they
 * come out in field order, and the refusal reasons, of which the one reported is the first by
 * `REFUSAL_PRIORITY` (spec 02 "Refusals").
 */
import type { Diagnostic } from "../core/diagnostics.ts";
import { CONFIG_FIELDS, type Field } from "./order.ts";
import type { Refusal, RefusalCode } from "./types.ts";

/** The resolution's own diagnostics, by field. */
export class FieldDiagnostics {
	private readonly byField = new Map<string, Diagnostic[]>();
	add(field: Field | "request", diagnostic: Diagnostic): void {
		const list = this.byField.get(field) ?? [];
		list.push(diagnostic);
		this.byField.set(field, list);
	}
	ordered(): Diagnostic[] {
		return [...CONFIG_FIELDS, "request" as const].flatMap((field) => this.byField.get(field) ?? []);
	}
}

/** Which refusal is reported when several apply: the first of these (docs/resolution.md says it). */
export const REFUSAL_PRIORITY: readonly RefusalCode[] = [
	"depth-exceeded",
	"type-not-allowed",
	"resume-refused",
	"disabled-type",
	"restriction-unread",
	"file-invalid",
	"bad-request",
	"workspace-unknown",
	"persona-error",
	"input-missing",
	"input-invalid",
	"output-schema-invalid",
	"sandbox-unavailable",
	"workspace-untrusted-host",
	"model-unresolvable",
	"budget-exhausted",
];

/** Refusal reasons; the one reported is the first by priority, its messages joined. */
export class Refusals {
	private readonly reasons = new Map<RefusalCode, string[]>();
	add(code: RefusalCode, message: string): void {
		const list = this.reasons.get(code) ?? [];
		list.push(message);
		this.reasons.set(code, list);
	}
	first(): Refusal | null {
		for (const code of REFUSAL_PRIORITY) {
			const messages = this.reasons.get(code);
			if (messages) return { code, message: messages.join("; ") };
		}
		return null;
	}
}

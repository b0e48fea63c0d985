/**
 * The enumerated values of definitions, roles, personas and requests, and the one normaliser that
 * turns what a user wrote into the canonical spelling (spec 01 "Enumerated values").
 */

export const CAPABILITY_MODES = ["read-only", "read-write", "execute", "all"] as const;
export type CapabilityMode = (typeof CAPABILITY_MODES)[number];

export const ISOLATION_MODES = ["none", "worktree"] as const;
export type IsolationMode = (typeof ISOLATION_MODES)[number];

/** `sandbox` (ADR 0150): `auto` sandboxes when the platform can, `required` refuses otherwise, `off` never. */
export const SANDBOX_MODES = ["auto", "required", "off"] as const;
export type SandboxMode = (typeof SANDBOX_MODES)[number];

/** pi's thinking levels, lowest first, plus `max` which the spec allows and pi clamps. */
export const THINKING_LEVELS = ["off", "minimal", "low", "medium", "high", "xhigh", "max"] as const;
export type ThinkingLevel = (typeof THINKING_LEVELS)[number];

export const IO_TYPES = ["file", "text", "directory", "json", "url"] as const;
export type IoType = (typeof IO_TYPES)[number];

const ALIASES: Record<string, string> = {
	readonly: "read-only",
	readwrite: "read-write",
	"work-tree": "worktree",
};

/**
 * Canonical spelling of an enumerated value: case-insensitive, `_` ≡ `-`, with the aliases of
 * spec 01. Returns null when the value is not one of `allowed`.
 */
export function normalizeEnum<T extends string>(
	raw: unknown,
	allowed: readonly T[],
	options: { thinking?: boolean } = {},
): T | null {
	if (typeof raw !== "string") return null;
	let value = raw.trim().toLowerCase().replaceAll("_", "-");
	if (options.thinking && value === "none") value = "off";
	if (Object.hasOwn(ALIASES, value)) value = ALIASES[value] as string;
	return (allowed as readonly string[]).includes(value) ? (value as T) : null;
}

export const normalizeCapability = (raw: unknown) => normalizeEnum(raw, CAPABILITY_MODES);
export const normalizeIsolation = (raw: unknown) => normalizeEnum(raw, ISOLATION_MODES);
export const normalizeSandbox = (raw: unknown) => normalizeEnum(raw, SANDBOX_MODES);
export const normalizeThinking = (raw: unknown) => normalizeEnum(raw, THINKING_LEVELS, { thinking: true });
export const normalizeIoType = (raw: unknown) => normalizeEnum(raw, IO_TYPES);

/** `inherit` (any case) means "not named" for model and thinking (spec 01). */
export function isInherit(raw: unknown): boolean {
	return typeof raw === "string" && raw.trim().toLowerCase() === "inherit";
}

/**
 * An empty object for keys a user wrote (type names, tool globs): no prototype, so `constructor`
 * or `__proto__` is a key like any other (issue 9 item 6).
 */
export function nameRecord<T>(): Record<string, T> {
	return Object.create(null) as Record<string, T>;
}

/** Names of types, roles and personas match case-insensitively: this is the lookup key. */
export function nameKey(name: string): string {
	return name.trim().toLowerCase();
}

/** Whether `value` is an http(s) URL (settings `telemetry.otlp`, the OTLP variables). */
export function isHttpUrl(value: string): boolean {
	try {
		const url = new URL(value.trim());
		return url.protocol === "http:" || url.protocol === "https:";
	} catch {
		return false;
	}
}

/**
 * Settings `sandbox` (ADR 0150): the default mode of every child's OS sandbox and what the policy
 * adds. What widens access — `default: off`, `env.allow`, `allowNetwork` — counts from user settings
 * or a trusted project only; `denyRead` narrows, so any file's list adds to the ones below it.
 */
import { normalizeSandbox, SANDBOX_MODES } from "../core/values.ts";
import type { Pos, RawField, RawValue } from "./raw.ts";
import type { SandboxSettings } from "./types.ts";

/** The keys of settings `sandbox`. */
export const SANDBOX_KEYS = ["default", "denyRead", "env", "allowNetwork"];

/** The settings before any file: `auto`, nothing added. */
export function defaultSandboxSettings(): SandboxSettings {
	return { default: { value: "auto", source: "default" }, denyRead: [], envAllow: [], allowNetwork: [] };
}

/** How the settings loader reports a problem (its own helpers). */
export interface SandboxSettingsHelpers {
	bad(val: RawValue, what: string, expects: string): void;
	untrusted(field: RawField, what: string): void;
	src(pos: Pos): string;
	unknown(field: RawField, known: string[]): void;
}

function stringList(val: RawValue): string[] | null {
	if (!Array.isArray(val.value) || !val.value.every((x) => typeof x === "string")) return null;
	return (val.value as string[]).map((x) => x.trim()).filter((x) => x !== "");
}

/** Applies one file's `sandbox` object over `out`. */
export function applySandboxSettings(entries: RawField[], source: { trusted: boolean }, out: SandboxSettings, h: SandboxSettingsHelpers): void {
	for (const entry of entries) {
		const list = () => {
			const value = stringList(entry.val);
			if (value === null) h.bad(entry.val, `sandbox.${entry.key}`, "expects a list of strings");
			return value;
		};
		if (entry.key === "default") {
			const mode = normalizeSandbox(entry.val.value);
			if (mode === null) h.bad(entry.val, "sandbox.default", `is not one of ${SANDBOX_MODES.join(", ")}`);
			else if (mode === "off" && !source.trusted) h.untrusted(entry, "sandbox.default: off");
			else out.default = { value: mode, source: h.src(entry.keyPos) };
		} else if (entry.key === "denyRead") {
			const value = list();
			if (value) out.denyRead = [...out.denyRead, ...value.filter((path) => !out.denyRead.includes(path))];
		} else if (entry.key === "allowNetwork") {
			const value = list();
			if (value && !source.trusted) h.untrusted(entry, "sandbox.allowNetwork");
			else if (value) out.allowNetwork = value;
		} else if (entry.key === "env") {
			for (const sub of entry.val.fields ?? []) {
				if (sub.key !== "allow") {
					h.unknown(sub, ["allow"]);
					continue;
				}
				const value = stringList(sub.val);
				if (value === null) h.bad(sub.val, "sandbox.env.allow", "expects a list of variable names");
				else if (!source.trusted) h.untrusted(sub, "sandbox.env.allow");
				else out.envAllow = value;
			}
			if (!entry.val.fields) h.bad(entry.val, "sandbox.env", "expects an object");
		} else h.unknown(entry, SANDBOX_KEYS);
	}
}

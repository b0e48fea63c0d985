/**
 * The check of the host's pi version against the range this adapter is written for; the pi
 * extension runs it at load and disables sub-agents on an unsupported pi.
 */

import { VERSION as PI_VERSION } from "@earendil-works/pi-coding-agent";

/** The pi versions this adapter is written against (`>=1.6.0 <2`). */
export const SUPPORTED_PI_RANGE = ">=1.6.0 <2";

/** Whether `version` satisfies `>=1.6.0 <2`; returns the reason when not. */
export function checkPiVersion(version: string = PI_VERSION): { ok: true; version: string } | { ok: false; version: string; message: string } {
	const match = /^(\d+)\.(\d+)\.(\d+)/.exec(version);
	const major = Number(match?.[1] ?? Number.NaN);
	const minor = Number(match?.[2] ?? Number.NaN);
	if (match && major === 1 && minor >= 6) return { ok: true, version };
	return {
		ok: false,
		version,
		message: `cadre supports pi ${SUPPORTED_PI_RANGE}, but this pi is ${version}; sub-agents are disabled. Install a supported pi or a cadre release built for pi ${version}.`,
	};
}

/**
 * Whether cadre exports traces, and where (docs/telemetry.md, ADR 0145): off unless the standard
 * OpenTelemetry variables name an OTLP endpoint or settings `telemetry.otlp` does (user settings
 * or a trusted project only, src/files/settings.ts). Pure: nothing of OpenTelemetry is imported
 * here, so deciding costs nothing when telemetry is off.
 */
import { isHttpUrl } from "../core/values.ts";

/** The environment variables this reads. */
export type TelemetryEnv = Readonly<Record<string, string | undefined>>;

/** Where spans go and what they may hold. */
export interface TelemetryConfig {
	/** The OTLP/HTTP traces URL (`…/v1/traces`). */
	url: string;
	/** `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`: prompts, answers and tool arguments go into spans. */
	captureContent: boolean;
	/** What named the endpoint. */
	source: "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT" | "OTEL_EXPORTER_OTLP_ENDPOINT" | "settings telemetry.otlp";
}

const TRACES_PATH = "/v1/traces";

/** A base OTLP endpoint (`http://host:4318`) with the traces path appended, as the OTLP spec says for the generic variable. */
export function tracesUrl(base: string): string {
	const trimmed = base.trim().replace(/\/+$/, "");
	return trimmed.endsWith(TRACES_PATH) ? trimmed : `${trimmed}${TRACES_PATH}`;
}

/**
 * The telemetry of this process, or null when it is off. The environment wins over settings, as
 * in every OpenTelemetry SDK; `OTEL_SDK_DISABLED=true` and `OTEL_TRACES_EXPORTER=none` turn it off.
 */
export function telemetryConfig(env: TelemetryEnv, settingsOtlp: string | null): TelemetryConfig | null {
	if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === "true") return null;
	if (env.OTEL_TRACES_EXPORTER?.trim().toLowerCase() === "none") return null;
	const captureContent = env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT?.trim().toLowerCase() === "true";
	const traces = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
	if (traces && isHttpUrl(traces)) return { url: traces, captureContent, source: "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT" };
	const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
	if (base && isHttpUrl(base)) return { url: tracesUrl(base), captureContent, source: "OTEL_EXPORTER_OTLP_ENDPOINT" };
	if (settingsOtlp && isHttpUrl(settingsOtlp)) return { url: tracesUrl(settingsOtlp), captureContent, source: "settings telemetry.otlp" };
	return null;
}

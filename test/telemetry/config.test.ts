/** Whether cadre traces, and where (src/telemetry/config.ts, ADR 0145). */
import { describe, expect, it } from "vitest";
import { telemetryConfig, tracesUrl } from "../../src/telemetry/config.ts";

describe("telemetryConfig", () => {
	it("is off without an endpoint, and with one that is not an http(s) URL", () => {
		expect(telemetryConfig({}, null)).toBeNull();
		expect(telemetryConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "" }, null)).toBeNull();
		expect(telemetryConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "grpc://127.0.0.1:4317" }, "not a url")).toBeNull();
	});

	it("prefers the traces variable, then the base one (with /v1/traces), then settings", () => {
		const env = { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://a:1/custom", OTEL_EXPORTER_OTLP_ENDPOINT: "http://b:2/" };
		expect(telemetryConfig(env, "http://c:3")).toEqual({ url: "http://a:1/custom", captureContent: false, source: "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT" });
		expect(telemetryConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://b:2/" }, "http://c:3")?.url).toBe("http://b:2/v1/traces");
		expect(telemetryConfig({}, "http://c:3")).toMatchObject({ url: "http://c:3/v1/traces", source: "settings telemetry.otlp" });
		expect(tracesUrl("http://c:3/v1/traces/")).toBe("http://c:3/v1/traces");
	});

	it("captures content only with OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true; OTEL_SDK_DISABLED turns it off", () => {
		expect(telemetryConfig({ OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: "1" }, "http://c:3")?.captureContent).toBe(false);
		expect(telemetryConfig({ OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: "TRUE" }, "http://c:3")?.captureContent).toBe(true);
		expect(telemetryConfig({ OTEL_SDK_DISABLED: "true" }, "http://c:3")).toBeNull();
		expect(telemetryConfig({ OTEL_TRACES_EXPORTER: "none", OTEL_EXPORTER_OTLP_ENDPOINT: "http://b:2" }, null)).toBeNull();
	});
});

/**
 * An OTLP/HTTP trace receiver on 127.0.0.1 for telemetry tests: it takes the JSON bodies cadre's
 * exporter posts to `/v1/traces` and hands back the spans, flattened, with their attributes as
 * plain values (OTLP JSON's `AnyValue` decoded).
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** One received span. */
export interface ReceivedSpan {
	traceId: string;
	spanId: string;
	parentSpanId: string | null;
	name: string;
	kind: number;
	attributes: Record<string, unknown>;
	status: { code?: number; message?: string };
	service: unknown;
}

export interface OtlpReceiver {
	/** The base endpoint (`OTEL_EXPORTER_OTLP_ENDPOINT`). */
	endpoint: string;
	spans: ReceivedSpan[];
	/** Content types of the requests (the exporter must send JSON). */
	contentTypes: string[];
	close(): Promise<void>;
}

type AnyValue = { stringValue?: string; intValue?: string | number; doubleValue?: number; boolValue?: boolean; arrayValue?: { values?: AnyValue[] } };

function decode(value: AnyValue | undefined): unknown {
	if (!value) return undefined;
	if (value.stringValue !== undefined) return value.stringValue;
	if (value.intValue !== undefined) return Number(value.intValue);
	if (value.doubleValue !== undefined) return value.doubleValue;
	if (value.boolValue !== undefined) return value.boolValue;
	if (value.arrayValue) return (value.arrayValue.values ?? []).map(decode);
	return undefined;
}

function attributesOf(list: { key: string; value: AnyValue }[] | undefined): Record<string, unknown> {
	return Object.fromEntries((list ?? []).map((entry) => [entry.key, decode(entry.value)]));
}

/** Start a receiver on an ephemeral port of 127.0.0.1. */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
	const spans: ReceivedSpan[] = [];
	const contentTypes: string[] = [];
	const server: Server = createServer((request, response) => {
		const chunks: Buffer[] = [];
		request.on("data", (chunk: Buffer) => chunks.push(chunk));
		request.on("end", () => {
			contentTypes.push(String(request.headers["content-type"] ?? ""));
			if (request.url !== "/v1/traces") {
				response.writeHead(404).end();
				return;
			}
			const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as {
				resourceSpans?: { resource?: { attributes?: { key: string; value: AnyValue }[] }; scopeSpans?: { spans?: Record<string, unknown>[] }[] }[];
			};
			for (const resource of body.resourceSpans ?? []) {
				const service = attributesOf(resource.resource?.attributes)["service.name"];
				for (const scope of resource.scopeSpans ?? []) {
					for (const span of scope.spans ?? []) {
						spans.push({
							traceId: String(span.traceId),
							spanId: String(span.spanId),
							parentSpanId: span.parentSpanId ? String(span.parentSpanId) : null,
							name: String(span.name),
							kind: Number(span.kind),
							attributes: attributesOf(span.attributes as { key: string; value: AnyValue }[]),
							status: (span.status ?? {}) as ReceivedSpan["status"],
							service,
						});
					}
				}
			}
			response.writeHead(200, { "content-type": "application/json" }).end("{}");
		});
	});
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	const { port } = server.address() as AddressInfo;
	return {
		endpoint: `http://127.0.0.1:${port}`,
		spans,
		contentTypes,
		close: () => new Promise((resolve) => server.close(() => resolve())),
	};
}

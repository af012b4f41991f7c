// A real OpenTelemetry JS SDK pointed at a test service: a MeterProvider whose reader exports
// through the OTLP protobuf or the OTLP JSON exporter from npm, as a user's process would.
import { AggregationTemporalityPreference, OTLPMetricExporter as JsonExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { OTLPMetricExporter as ProtobufExporter } from '@opentelemetry/exporter-metrics-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';

export type OtlpEncoding = 'protobuf' | 'json';

export interface SdkOptions {
  readonly url: string;
  readonly token: string;
  readonly encoding: OtlpEncoding;
  readonly serviceName: string;
  readonly temporality?: 'delta' | 'cumulative';
}

/** A meter provider exporting only when flushed (forceFlush), so a test decides when points leave. */
export function otelSdk(options: SdkOptions): MeterProvider {
  const exporterOptions = {
    url: `${options.url}/v1/metrics`,
    headers: { Authorization: `Bearer ${options.token}` },
    temporalityPreference: options.temporality === 'cumulative' ? AggregationTemporalityPreference.CUMULATIVE : AggregationTemporalityPreference.DELTA,
    timeoutMillis: 30_000,
  };
  const exporter = options.encoding === 'protobuf' ? new ProtobufExporter(exporterOptions) : new JsonExporter(exporterOptions);
  const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 3_600_000, exportTimeoutMillis: 60_000 });
  return new MeterProvider({ resource: resourceFromAttributes({ 'service.name': options.serviceName, 'deployment.environment': 'test' }), readers: [reader] });
}

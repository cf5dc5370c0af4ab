/** The structured log lines the data plane writes (a pino logger, as Fastify's, fits). */
export interface Logger {
  info(obj: unknown, msg?: string): void;
  warn(obj: unknown, msg?: string): void;
  error(obj: unknown, msg?: string): void;
}

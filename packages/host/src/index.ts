/**
 * @analytics/host: the packaged analytics service.
 *
 * @since 0.1.0
 */
export * as HostConfig from "./HostConfig.ts"
export * as Main from "./Main.ts"
export * as PinoLogger from "./PinoLogger.ts"
export * as Service from "./Service.ts"

import { operationLimitsSuite } from "./OperationLimitsSuite.ts"
import { RateLimitStore } from "@analytics/core"

operationLimitsSuite("memory", RateLimitStore.RateLimitStore.layerMemory)

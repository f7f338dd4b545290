import { RateLimitStore } from "@analytics/core"
import { rateLimitStoreContract } from "@analytics/core/testing"

rateLimitStoreContract("memory", RateLimitStore.RateLimitStore.layerMemory)

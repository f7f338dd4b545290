import { RateLimitStore } from "@analytics/core"
import { rateLimitStoreContract } from "@analytics/testing"

rateLimitStoreContract("memory", RateLimitStore.RateLimitStore.layerMemory)

/**
 * Migrations of the rate-limit state (decision 0009) and the functions that
 * decide on it in one round trip.
 * Never edit one that has shipped: append a new one (decision 0007).
 *
 * @since 0.1.0
 */
import { ddl } from "./Ddl.ts"

/**
 * Rate limits (decision 0009): one row per quota key, decided by one function call
 * (one round trip) whose integer arithmetic is exactly `RateLimit.decide`'s.
 * A bucket keeps (a, b) = (level, updated_at); a window keeps (a, b, c) =
 * (window number, current count, previous count). Times are epoch
 * milliseconds as the deciding process's clock gave them. `forget_at` is
 * when the state has decided like none (`RateLimit.expiresAt`) for
 * `RateLimit.retainAfterExpiryMillis` (5 min, for clocks running behind):
 * rows past it may be deleted at any time. Concurrency slots are leases with an expiry.
 *
 * Every key is locked with a transaction-level advisory lock (class 7431,
 * taken in key order, so two deciders never deadlock) before it is read.
 */
export const rateLimits = ddl([
  `CREATE TABLE rate_limit_states (
    key text PRIMARY KEY,
    a bigint NOT NULL,
    b bigint NOT NULL,
    c bigint NOT NULL,
    forget_at bigint NOT NULL
  )`,
  `CREATE INDEX rate_limit_states_by_forget_at ON rate_limit_states (forget_at)`,
  `CREATE TABLE rate_limit_slots (
    key text NOT NULL,
    lease text NOT NULL,
    expires_at bigint NOT NULL,
    PRIMARY KEY (key, lease)
  )`,
  `CREATE FUNCTION analytics_rate_limit_lock(keys text[]) RETURNS void LANGUAGE plpgsql AS $$
  DECLARE
    k text;
  BEGIN
    FOR k IN SELECT DISTINCT u FROM unnest(keys) AS u ORDER BY u LOOP
      PERFORM pg_advisory_xact_lock(7431, hashtext(k));
    END LOOP;
  END $$`,
  // Decides one request against quotas i = 1..n (bucket: sizes = capacity, periods = fill ms;
  // window: sizes = limit, periods = window ms); keeps the new states only if all pass.
  // Returns the states as they were, for the caller to compute the decision's details.
  `CREATE FUNCTION analytics_rate_limit_consume(
    keys text[], buckets boolean[], sizes bigint[], periods bigint[], now bigint,
    OUT allowed boolean, OUT prior_a bigint[], OUT prior_b bigint[], OUT prior_c bigint[]
  ) LANGUAGE plpgsql AS $$
  DECLARE
    n int := cardinality(keys);
    r rate_limit_states;
    found_row boolean;
    next_a bigint[] := '{}'; next_b bigint[] := '{}'; next_c bigint[] := '{}'; forget bigint[] := '{}';
    full_level bigint; lvl bigint; at bigint; w bigint; now_window bigint; win bigint; elapsed bigint; cur bigint; prev bigint;
  BEGIN
    PERFORM analytics_rate_limit_lock(keys);
    allowed := true; prior_a := '{}'; prior_b := '{}'; prior_c := '{}';
    FOR i IN 1..n LOOP
      SELECT * INTO r FROM rate_limit_states WHERE key = keys[i];
      found_row := FOUND;
      prior_a[i] := r.a; prior_b[i] := r.b; prior_c[i] := r.c;
      IF buckets[i] THEN
        full_level := sizes[i] * periods[i];
        IF found_row THEN
          at := greatest(now, r.b);
          lvl := least(full_level, r.a + (at - r.b) * sizes[i]);
        ELSE
          at := now; lvl := full_level;
        END IF;
        IF lvl < periods[i] THEN allowed := false; END IF;
        next_a[i] := lvl - periods[i]; next_b[i] := at; next_c[i] := 0;
        forget[i] := at + (full_level - next_a[i] + sizes[i] - 1) / sizes[i] + 300000;
      ELSE
        w := periods[i];
        now_window := floor(now::numeric / w)::bigint;
        IF found_row AND r.a >= now_window THEN
          win := r.a; elapsed := greatest(0, now - win * w); cur := r.b; prev := r.c;
        ELSE
          win := now_window; elapsed := now - win * w; cur := 0;
          prev := CASE WHEN found_row AND r.a = now_window - 1 THEN r.b ELSE 0 END;
        END IF;
        IF prev * (w - elapsed) + cur * w + w > sizes[i] * w THEN allowed := false; END IF;
        next_a[i] := win; next_b[i] := cur + 1; next_c[i] := prev;
        forget[i] := (win + 2) * w + 300000;
      END IF;
    END LOOP;
    IF allowed THEN
      INSERT INTO rate_limit_states (key, a, b, c, forget_at)
        SELECT * FROM unnest(keys, next_a, next_b, next_c, forget)
      ON CONFLICT (key) DO UPDATE
        SET a = excluded.a, b = excluded.b, c = excluded.c, forget_at = excluded.forget_at;
    END IF;
    -- Now and then, forget a few states that decide like none (keys per client IP would pile up).
    IF random() < 0.01 THEN
      DELETE FROM rate_limit_states WHERE key IN (
        SELECT key FROM rate_limit_states WHERE forget_at <= now ORDER BY forget_at LIMIT 100
      ) AND forget_at <= now;
    END IF;
  END $$`,
  // Gives back a request counted at counted_at (RateLimit.refundOne).
  `CREATE FUNCTION analytics_rate_limit_refund(
    keys text[], buckets boolean[], sizes bigint[], periods bigint[], counted_at bigint, now bigint
  ) RETURNS void LANGUAGE plpgsql AS $$
  DECLARE
    r rate_limit_states;
    full_level bigint; lvl bigint; at bigint; counted_window bigint;
  BEGIN
    PERFORM analytics_rate_limit_lock(keys);
    FOR i IN 1..cardinality(keys) LOOP
      SELECT * INTO r FROM rate_limit_states WHERE key = keys[i];
      CONTINUE WHEN NOT FOUND;
      IF buckets[i] THEN
        full_level := sizes[i] * periods[i];
        at := greatest(now, r.b);
        lvl := least(full_level, least(full_level, r.a + (at - r.b) * sizes[i]) + periods[i]);
        UPDATE rate_limit_states
          SET a = lvl, b = at, forget_at = at + (full_level - lvl + sizes[i] - 1) / sizes[i] + 300000
          WHERE key = keys[i];
      ELSE
        counted_window := floor(counted_at::numeric / periods[i])::bigint;
        UPDATE rate_limit_states
          SET b = CASE WHEN a = counted_window THEN greatest(0, b - 1) ELSE b END,
              c = CASE WHEN a = counted_window + 1 THEN greatest(0, c - 1) ELSE c END
          WHERE key = keys[i];
      END IF;
    END LOOP;
  END $$`,
  // Takes a slot unless capacity unexpired leases hold them all (the lease itself renews).
  `CREATE FUNCTION analytics_rate_limit_acquire_slot(
    slot_key text, slot_lease text, capacity int, now bigint, lease_expires_at bigint
  ) RETURNS boolean LANGUAGE plpgsql AS $$
  BEGIN
    PERFORM analytics_rate_limit_lock(ARRAY[slot_key]);
    DELETE FROM rate_limit_slots WHERE key = slot_key AND expires_at <= now;
    IF NOT EXISTS (SELECT 1 FROM rate_limit_slots WHERE key = slot_key AND lease = slot_lease)
      AND (SELECT count(*) FROM rate_limit_slots WHERE key = slot_key) >= capacity THEN
      RETURN false;
    END IF;
    INSERT INTO rate_limit_slots (key, lease, expires_at) VALUES (slot_key, slot_lease, lease_expires_at)
      ON CONFLICT (key, lease) DO UPDATE SET expires_at = excluded.expires_at;
    RETURN true;
  END $$`
])

/**
 * Exact sliding logs (decision 0009: password attempts, 5 failures in any
 * 5 minutes). A log's row keeps a = b = c = 0 and `log`, the ascending
 * instants (epoch ms) still inside the window when written; `forget_at` is
 * the last instant plus the window plus 5 minutes.
 *
 * The consume and refund functions gain overloads that take each quota's
 * kind as text (`bucket`, `window`, `log`) instead of a boolean; the
 * boolean ones stay, unchanged, for hosts not yet upgraded during a rolling
 * deploy (they never see a log: its keys are its own).
 */
export const rateLimitLogs = ddl([
  `ALTER TABLE rate_limit_states ADD COLUMN log bigint[]`,
  // Decides one request against quotas i = 1..n (bucket: sizes = capacity, periods = fill ms;
  // window and log: sizes = limit, periods = window ms); keeps the new states only if all pass.
  // Returns the states as they were (a log as its instants joined by commas), for the caller
  // to compute the decision's details.
  `CREATE FUNCTION analytics_rate_limit_consume(
    keys text[], kinds text[], sizes bigint[], periods bigint[], now bigint,
    OUT allowed boolean, OUT prior_a bigint[], OUT prior_b bigint[], OUT prior_c bigint[], OUT prior_log text[]
  ) LANGUAGE plpgsql AS $$
  DECLARE
    n int := cardinality(keys);
    r rate_limit_states;
    found_row boolean;
    next_a bigint[] := '{}'; next_b bigint[] := '{}'; next_c bigint[] := '{}'; forget bigint[] := '{}';
    next_log text[] := '{}';
    live bigint[];
    full_level bigint; lvl bigint; at bigint; w bigint; now_window bigint; win bigint; elapsed bigint; cur bigint; prev bigint;
  BEGIN
    PERFORM analytics_rate_limit_lock(keys);
    allowed := true; prior_a := '{}'; prior_b := '{}'; prior_c := '{}'; prior_log := '{}';
    FOR i IN 1..n LOOP
      SELECT * INTO r FROM rate_limit_states WHERE key = keys[i];
      found_row := FOUND;
      prior_log[i] := NULL; next_log[i] := NULL;
      IF kinds[i] = 'log' THEN
        -- A row of another shape under this key reads as no state (the next write replaces it).
        IF found_row AND r.log IS NOT NULL THEN
          prior_a[i] := 0; prior_b[i] := 0; prior_c[i] := 0;
          prior_log[i] := array_to_string(r.log, ',');
          live := ARRAY(SELECT t FROM unnest(r.log) AS t WHERE t > now - periods[i] ORDER BY t);
        ELSE
          prior_a[i] := NULL; prior_b[i] := NULL; prior_c[i] := NULL;
          live := '{}';
        END IF;
        IF cardinality(live) >= sizes[i] THEN allowed := false; END IF;
        live := ARRAY(SELECT t FROM unnest(live || now) AS t ORDER BY t);
        next_a[i] := 0; next_b[i] := 0; next_c[i] := 0;
        next_log[i] := array_to_string(live, ',');
        forget[i] := live[cardinality(live)] + periods[i] + 300000;
      ELSIF kinds[i] = 'bucket' THEN
        prior_a[i] := r.a; prior_b[i] := r.b; prior_c[i] := r.c;
        full_level := sizes[i] * periods[i];
        IF found_row THEN
          at := greatest(now, r.b);
          lvl := least(full_level, r.a + (at - r.b) * sizes[i]);
        ELSE
          at := now; lvl := full_level;
        END IF;
        IF lvl < periods[i] THEN allowed := false; END IF;
        next_a[i] := lvl - periods[i]; next_b[i] := at; next_c[i] := 0;
        forget[i] := at + (full_level - next_a[i] + sizes[i] - 1) / sizes[i] + 300000;
      ELSE
        prior_a[i] := r.a; prior_b[i] := r.b; prior_c[i] := r.c;
        w := periods[i];
        now_window := floor(now::numeric / w)::bigint;
        IF found_row AND r.a >= now_window THEN
          win := r.a; elapsed := greatest(0, now - win * w); cur := r.b; prev := r.c;
        ELSE
          win := now_window; elapsed := now - win * w; cur := 0;
          prev := CASE WHEN found_row AND r.a = now_window - 1 THEN r.b ELSE 0 END;
        END IF;
        IF prev * (w - elapsed) + cur * w + w > sizes[i] * w THEN allowed := false; END IF;
        next_a[i] := win; next_b[i] := cur + 1; next_c[i] := prev;
        forget[i] := (win + 2) * w + 300000;
      END IF;
    END LOOP;
    IF allowed THEN
      INSERT INTO rate_limit_states (key, a, b, c, forget_at, log)
        SELECT u.k, u.a, u.b, u.c, u.f, string_to_array(u.l, ',')::bigint[]
        FROM unnest(keys, next_a, next_b, next_c, forget, next_log) AS u(k, a, b, c, f, l)
      ON CONFLICT (key) DO UPDATE
        SET a = excluded.a, b = excluded.b, c = excluded.c, forget_at = excluded.forget_at, log = excluded.log;
    END IF;
    -- Now and then, forget a few states that decide like none (keys per client IP would pile up).
    IF random() < 0.01 THEN
      DELETE FROM rate_limit_states WHERE key IN (
        SELECT key FROM rate_limit_states WHERE forget_at <= now ORDER BY forget_at LIMIT 100
      ) AND forget_at <= now;
    END IF;
  END $$`,
  // Gives back a request counted at counted_at (RateLimit.refundOne): a log drops one instant equal to it.
  `CREATE FUNCTION analytics_rate_limit_refund(
    keys text[], kinds text[], sizes bigint[], periods bigint[], counted_at bigint, now bigint
  ) RETURNS void LANGUAGE plpgsql AS $$
  DECLARE
    r rate_limit_states;
    full_level bigint; lvl bigint; at bigint; counted_window bigint; pos int;
  BEGIN
    PERFORM analytics_rate_limit_lock(keys);
    FOR i IN 1..cardinality(keys) LOOP
      SELECT * INTO r FROM rate_limit_states WHERE key = keys[i];
      CONTINUE WHEN NOT FOUND;
      IF kinds[i] = 'log' THEN
        CONTINUE WHEN r.log IS NULL;
        pos := array_position(r.log, counted_at);
        CONTINUE WHEN pos IS NULL;
        UPDATE rate_limit_states SET log = r.log[:pos - 1] || r.log[pos + 1:] WHERE key = keys[i];
      ELSIF kinds[i] = 'bucket' THEN
        full_level := sizes[i] * periods[i];
        at := greatest(now, r.b);
        lvl := least(full_level, least(full_level, r.a + (at - r.b) * sizes[i]) + periods[i]);
        UPDATE rate_limit_states
          SET a = lvl, b = at, forget_at = at + (full_level - lvl + sizes[i] - 1) / sizes[i] + 300000
          WHERE key = keys[i];
      ELSE
        counted_window := floor(counted_at::numeric / periods[i])::bigint;
        UPDATE rate_limit_states
          SET b = CASE WHEN a = counted_window THEN greatest(0, b - 1) ELSE b END,
              c = CASE WHEN a = counted_window + 1 THEN greatest(0, c - 1) ELSE c END
          WHERE key = keys[i];
      END IF;
    END LOOP;
  END $$`
])

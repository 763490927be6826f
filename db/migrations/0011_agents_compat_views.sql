-- The legacy compatibility views of the agents family (atlas-agentic-core.md §2.1, §2.3,
-- Strangler Fig): the older name `agent_profiles` exposes exactly the columns of `agents`
-- (code paths read the view, the hub reads the table; a test proves them equivalent), and
-- activity, heartbeat, relationships, experience and its history keep their legacy names.
-- Events, skills and tools have none, as in the seed. Each is a simple one-table view, so
-- PostgreSQL makes it insertable and updatable by itself. The column lists are explicit: a
-- later column added to a table needs a migration that recreates its view (the equivalence
-- test fails until then).
CREATE VIEW agent_profiles AS
  SELECT id, codename, nickname, role, job_mission, role_en, group_name, orbite, heritage, heritage_en,
    cognitive_frame, cognitive_frame_en, personality, personality_en, quote, quote_en,
    inspiration, inspiration_en, proof, proof_en, job_mission_en,
    job_perimeter, job_perimeter_en, job_key_checks, job_key_checks_en, content_md, active,
    prompt_domains, auto_spawn, spawn_count, error_count, last_spawn_at, last_error_at,
    created_at, updated_at
  FROM agents;
--> statement-breakpoint
CREATE VIEW agent_activity AS
  SELECT id, agent, kind, summary, ref, created_at FROM agents_activity;
--> statement-breakpoint
CREATE VIEW agent_heartbeat AS
  SELECT agent, state, detail, beat_at FROM agents_heartbeats;
--> statement-breakpoint
CREATE VIEW agent_relationships AS
  SELECT id, from_agent, to_agent, kind, note, note_en FROM agents_relationships;
--> statement-breakpoint
CREATE VIEW agent_experience AS
  SELECT agent, xp, missions, successes, failures, updated_at FROM agents_experience;
--> statement-breakpoint
CREATE VIEW agent_experience_history AS
  SELECT id, agent, delta, reason, created_at FROM agents_experience_history;

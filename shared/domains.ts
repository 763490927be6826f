import type { DomainDescriptor } from './domain'
import { domain as atlas } from '#layers/atlas/core/domain'
import { domain as agents } from '#layers/agents/core/domain'
import { domain as memory } from '#layers/memory/core/domain'
import { domain as learning } from '#layers/learning/core/domain'
import { domain as skills } from '#layers/skills/core/domain'
import { domain as ai } from '#layers/ai/core/domain'
import { domain as worksites } from '#layers/worksites/core/domain'
import { domain as health } from '#layers/health/core/domain'
import { domain as clients } from '#layers/clients/core/domain'
import { domain as settings } from '#layers/settings/core/domain'

/** The domains in sidebar order. */
export const domains: DomainDescriptor[] = [atlas, clients, agents, memory, learning, skills, ai, worksites, health, settings]

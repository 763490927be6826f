import { customToolRegistry } from '../../../core/custom/delegation'
import { studioPolicyView } from '../../../core/custom/studio-policy'

// The studio policy (P3): which tools a custom agent may ever use. Anyone may read it (it explains a run's tools).
export default defineEventHandler(async () => await studioPolicyView(await useDb(), customToolRegistry()))

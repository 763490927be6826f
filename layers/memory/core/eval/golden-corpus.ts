// The seeded corpus the project's own golden set is written against: a small studio's
// memory across every source type (scars, victories, doctrines, procedures, drills, agents,
// ReAct iterations, vault notes, reflex memory). `seedEvalCorpus` writes it into a database
// and two folders; the note indexer and the vector sync then index it as in production.
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import type { Db } from '#db/client'
import { agents, agentsReactIterations } from '#db/schema/agents'
import { atlasMessages } from '#db/schema/atlas'
import { learnDoctrines, learnDrills, learnLessons, learnProcedures, type LearnLessonKind } from '#db/schema/learn'
import { workChantiers } from '#db/schema/work'
import { REFLEX_INDEX_FILE } from '../reflex'

interface Lesson {
  kind: LearnLessonKind
  title: string
  description: string
  checkAdded: string
  importance: number
  tags: string[]
  agent?: string
  ageDays: number
}

export const CORPUS_LESSONS: Lesson[] = [
  { kind: 'failure', title: 'Deploy without smoke test', description: 'Le déploiement de la préproduction Acme est parti sans smoke test : la page de paiement renvoyait une erreur 500 pendant deux heures.', checkAdded: 'Le script de déploiement lance le smoke test et bloque si une route critique échoue.', importance: 9, tags: ['deploy', 'qa'], agent: 'backend', ageDays: 12 },
  { kind: 'failure', title: 'Migration dropped a column in production', description: 'Une migration Drizzle a supprimé la colonne billing_email encore lue par la facturation ; les factures sont parties sans destinataire.', checkAdded: 'Toute migration destructive passe par deux déploiements : on arrête de lire, puis on supprime.', importance: 10, tags: ['database', 'migration'], agent: 'backend', ageDays: 40 },
  { kind: 'failure', title: 'IMAP fetch loop deadlock', description: 'Le collecteur envoyait une commande IMAP dans la boucle fetch : imapflow restait bloqué et la boîte Atlas n\'était plus relevée.', checkAdded: 'Collecter d\'abord les messages, puis agir hors de la boucle fetch.', importance: 8, tags: ['imap', 'atlas'], agent: 'orchestrator', ageDays: 5 },
  { kind: 'failure', title: 'Secret leaked in a log line', description: 'Une clé API Mistral apparaissait en clair dans la ligne de log d\'une erreur HTTP du fournisseur.', checkAdded: 'Les messages d\'erreur passent par la rédaction des secrets avant tout log.', importance: 10, tags: ['security', 'secrets'], agent: 'securite', ageDays: 90 },
  { kind: 'failure', title: 'Cron job ran twice after a restart', description: 'Après un redémarrage, deux superviseurs ont lancé la même automatisation ; le verrou de session advisory n\'était pas exclusif sur la base embarquée.', checkAdded: 'Les verrous sont des baux en base, réclamés par une seule requête atomique et entretenus par heartbeat.', importance: 7, tags: ['cron', 'locks'], ageDays: 30 },
  { kind: 'failure', title: 'Client e-mailed directly by the agent', description: 'Un agent a répondu directement au client final au lieu de rédiger un brouillon pour l\'équipe.', checkAdded: 'La façade d\'envoi refuse tout destinataire hors de la liste interne et trace le refus.', importance: 10, tags: ['mail', 'doctrine'], agent: 'orchestrator', ageDays: 200 },
  { kind: 'failure', title: 'Timezone bug in the daily report', description: 'Le rapport quotidien comptait les coûts IA de la veille en heure locale, décalant les totaux de deux heures.', checkAdded: 'Les agrégats quotidiens se calculent en UTC.', importance: 4, tags: ['reporting', 'timezone'], ageDays: 400 },
  { kind: 'failure', title: 'OCR text stored in the database', description: 'Le texte OCR d\'une pièce jointe contenant un RIB a été enregistré dans la table des messages.', checkAdded: 'Le texte OCR reste en mémoire, dans le prompt uniquement, jamais dans une table ni un log.', importance: 9, tags: ['ocr', 'privacy'], agent: 'securite', ageDays: 60 },
  { kind: 'failure', title: 'HNSW index ignored by a filtered query', description: 'Une recherche sémantique filtrée par type de source ne renvoyait que deux résultats au lieu de dix : le filtre éliminait les candidats du parcours HNSW.', checkAdded: 'Activer les parcours itératifs de pgvector 0.8 dans la transaction de la requête.', importance: 6, tags: ['pgvector', 'recall'], ageDays: 3 },
  { kind: 'failure', title: 'Tailwind purge removed dynamic classes', description: 'Les classes de couleur construites dynamiquement ont disparu du build de production de la landing page.', checkAdded: 'Lister les classes dynamiques dans la safelist.', importance: 3, tags: ['frontend', 'css'], agent: 'frontend', ageDays: 700 },
  { kind: 'failure', title: 'Spawn killed without salvaging the checkpoint', description: 'Un agent bloqué a été tué au timeout de quarante minutes et son point de contrôle intermédiaire a été perdu.', checkAdded: 'Récupérer le dernier checkpoint écrit avant de marquer le spawn en échec.', importance: 7, tags: ['spawn', 'atlas'], agent: 'orchestrator', ageDays: 20 },
  { kind: 'failure', title: 'Robots noindex shipped to production', description: 'La balise noindex de la préproduction est partie en production ; le site client a disparu de Google pendant une semaine.', checkAdded: 'Le contrôle SEO technique vérifie robots et meta noindex avant chaque mise en production.', importance: 8, tags: ['seo'], agent: 'seo-technique', ageDays: 150 },
  { kind: 'success', title: 'Zero-downtime Postgres upgrade', description: 'Passage de PostgreSQL 13 à 15 sans interruption grâce à la réplication logique et une bascule de DNS.', checkAdded: 'Réplication logique, vérification des comptes, bascule en une minute.', importance: 6, tags: ['database', 'ops'], ageDays: 45 },
  { kind: 'success', title: 'Reply drafts accepted without edits', description: 'Neuf brouillons de réponse sur dix ont été envoyés par l\'équipe sans modification ce mois-ci.', checkAdded: 'Registre formel, trois à six phrases, signature de l\'équipe.', importance: 5, tags: ['atlas', 'mail'], ageDays: 10 },
  { kind: 'success', title: 'Lighthouse score 100 on the Bistrot site', description: 'Le site du Bistrot atteint 100 en performance grâce aux images AVIF et au chargement différé des polices.', checkAdded: 'Images AVIF, polices préchargées, CSS critique en ligne.', importance: 4, tags: ['frontend', 'performance'], agent: 'frontend', ageDays: 25 },
]

export const CORPUS_DOCTRINES = [
  { title: 'The AI never contacts an external person', body: 'Aucun agent n\'écrit à un client ou à un prospect. Les réponses sont des brouillons que l\'équipe relit et envoie elle-même.' },
  { title: 'Scan before opening', body: 'Toute pièce jointe passe par l\'antivirus ClamAV avant d\'être ouverte, lue par OCR ou classée.' },
  { title: 'Human-gated promotion', body: 'Rien de ce que produit la boucle d\'apprentissage ne modifie la mémoire permanente, les règles ou les skills sans une action humaine auditée.' },
  { title: 'Secrets only from the environment', body: 'Les clés et mots de passe viennent de l\'environnement, jamais du code, des journaux, des lignes de base ou des fixtures de test.' },
  { title: 'Commit before deploy', body: 'On ne déploie que du code commité ; un déploiement depuis un arbre de travail modifié est refusé.' },
]

export const CORPUS_PROCEDURES = [
  { title: 'Rollback a failed deployment', body: 'Repérer le dernier tag sain, relancer le déploiement sur ce tag, vérifier le smoke test, prévenir l\'équipe dans le canal ops.' },
  { title: 'Rotate a provider API key', body: 'Créer la nouvelle clé chez le fournisseur, mettre à jour le fichier d\'environnement, redémarrer le hub, révoquer l\'ancienne clé.' },
  { title: 'Restore the database from a backup', body: 'Arrêter les automates, restaurer le dernier dump pg_dump dans une base neuve, appliquer les migrations, vérifier les comptes, rebasculer.' },
  { title: 'Onboard a new client tenant', body: 'Créer le tenant avec ses domaines et contacts, régler son fournisseur IA et son URL de préproduction, tester un message Atlas.' },
]

export const CORPUS_DRILLS = [
  { title: 'Phishing e-mail with an invoice', scenario: 'Un faux fournisseur envoie une facture piégée en pièce jointe ; vérifier que l\'antivirus bloque et que personne ne l\'ouvre.' },
  { title: 'Provider outage during the night', scenario: 'Mistral répond 503 toute la nuit ; vérifier la bascule vers un autre fournisseur et le rapport du matin.' },
  { title: 'Database disk full', scenario: 'Le disque de PostgreSQL est plein ; vérifier l\'alerte, la purge des journaux et la reprise des automates.' },
]

export const CORPUS_AGENTS = [
  { codename: 'orchestrator', nickname: 'Atlas', role: 'Orchestrateur', jobMission: 'Trie les demandes entrantes, lance les agents et suit chaque chantier jusqu\'au récapitulatif.' },
  { codename: 'securite', nickname: 'Mitnick', role: 'Responsable sécurité', jobMission: 'Audite les secrets, les dépendances, les pièces jointes et les accès ; refuse tout ce qui sort du périmètre.' },
  { codename: 'seo-technique', nickname: 'Otlet', role: 'SEO Technical Officer', jobMission: 'Vérifie indexation, sitemap, balises canoniques, robots et données structurées avant chaque mise en ligne.' },
  { codename: 'backend', nickname: 'Gauss', role: 'Ingénieur backend', jobMission: 'Conçoit les API, les migrations de base de données et les automatisations côté serveur.' },
  { codename: 'health-guardian', nickname: 'Nightingale', role: 'Gardienne de la santé du système', jobMission: 'Lit les signes vitaux chaque nuit et rédige une note de soin de trois phrases au plus.' },
]

export const CORPUS_ITERATIONS = [
  { agent: 'backend', runRef: 'acme-checkout', step: 1, thought: 'Le paiement échoue après la migration.', action: 'Lire les journaux du service de facturation.', observation: 'La colonne billing_email est absente.', status: 'done' },
  { agent: 'backend', runRef: 'acme-checkout', step: 2, thought: 'Il faut restaurer la colonne sans perdre les données.', action: 'Écrire une migration qui rajoute billing_email et la remplit depuis la sauvegarde.', observation: 'Les factures repartent avec leur destinataire.', status: 'pass' },
  { agent: 'seo-technique', runRef: 'bistrot-launch', step: 1, thought: 'Vérifier le sitemap avant la mise en ligne.', action: 'Télécharger sitemap.xml et compter les URL.', observation: 'Le sitemap liste 42 pages dont 3 en erreur 404.', status: 'done' },
  { agent: 'orchestrator', runRef: 'atlas-triage', step: 1, thought: 'Un message ressemble à une relance de devis.', action: 'Classer comme negociation et rattacher au client existant.', observation: 'Le garde-fou client existant le requalifie en run.', status: 'done' },
]

export const CORPUS_CHANTIERS = [
  { title: 'Refonte du site Atelier Nord', brief: 'Nouvelle application de réservation des ateliers, paiement en ligne et rappels par SMS.', status: 'active' },
  { title: 'Migration Bistrot vers Nuxt', brief: 'Porter le site vitrine du Bistrot sur Nuxt avec un menu éditable.', status: 'draft' },
  { title: 'Ancienne boutique Acme', brief: 'Chantier terminé : boutique en ligne livrée en 2025.', status: 'done' },
]

export const CORPUS_NOTES: Record<string, string> = {
  'permanent/reciprocal-rank-fusion.md': `---
title: Reciprocal Rank Fusion
type: concept
tags: [recall, search]
---
# Reciprocal Rank Fusion

La fusion RRF combine le classement lexical et le classement sémantique : score = somme de 1/(60 + rang).
Voir aussi [[hnsw-index]] et [[hybrid-recall-decision]].
`,
  'permanent/hnsw-index.md': `---
title: HNSW index
type: concept
tags: [pgvector]
---
L'index HNSW (Hierarchical Navigable Small World) donne une recherche approchée des plus proches voisins en similarité cosinus.
Le paramètre ef_search borne le nombre de candidats ; les parcours itératifs de pgvector 0.8 continuent quand un filtre les élimine.
Lié à [[reciprocal-rank-fusion]].
`,
  'permanent/hybrid-recall-decision.md': `---
title: Why recall is hybrid by default
type: decision
tags: [recall, decision]
---
Les slugs et les noms propres (Mitnick, billing_email) sont mieux trouvés par la recherche lexicale ; les reformulations par la sémantique.
Le mode hybride garde les deux. Décision liée à [[reciprocal-rank-fusion]].
`,
  'permanent/client-tenants.md': `---
title: Client tenants
type: concept
tags: [clients]
---
Un tenant client porte ses domaines, ses contacts, son fournisseur IA et l'URL de sa préproduction.
`,
  'inbox/debrief-acme-checkout.md': `---
title: Debrief Acme checkout incident
type: lesson
status: draft
tags: [debrief, acme]
---
Brouillon de retour d'expérience : la migration destructive a cassé la facturation d'Acme. Piste : deux déploiements pour toute suppression de colonne.
Voir [[hybrid-recall-decision]] et [[missing-note]].
`,
  'inbox/idea-weekly-cost-review.md': `---
title: Weekly AI cost review
type: idea
status: draft
---
Idée : une revue hebdomadaire des coûts IA par agent, comparée à la moyenne des quatre semaines précédentes.
`,
  'toc/memory-map.md': `---
title: Memory map
type: toc
---
Sommaire de la mémoire : [[reciprocal-rank-fusion]], [[hnsw-index]], [[client-tenants]].
`,
  // Pairs joined by a wiki link, each answering half of a multi-hop question of the golden set.
  'permanent/acme-payment.md': `---
title: Paiement Acme
type: concept
tags: [acme, paiement]
---
La boutique Acme encaisse par carte via Stripe. Quand un paiement reste bloqué, suivre [[stripe-webhooks]].
`,
  'permanent/stripe-webhooks.md': `---
title: Webhooks Stripe
type: runbook
tags: [stripe]
---
Les événements sont signés avec le secret whsec ; rejouer les événements manqués depuis le tableau de bord, puis vérifier la commande.
`,
  'permanent/bistrot-hosting.md': `---
title: Hébergement du Bistrot
type: concept
tags: [bistrot, hebergement]
---
Le site du Bistrot est servi par un VPS chez Scaleway. Ses certificats suivent [[tls-renewal]].
`,
  'permanent/tls-renewal.md': `---
title: Renouvellement TLS
type: runbook
tags: [tls]
---
Certbot renouvelle les certificats Let's Encrypt chaque nuit ; en cas d'échec, relancer certbot renew puis recharger nginx.
`,
  'permanent/atelier-nord-sms.md': `---
title: Rappels SMS de l'Atelier Nord
type: concept
tags: [atelier-nord]
---
Les rappels de réservation partent par SMS la veille à 18 h, par le fournisseur décrit dans [[sms-gateway]].
`,
  'permanent/sms-gateway.md': `---
title: Passerelle SMS
type: reference
tags: [sms]
---
Brevo envoie les messages ; sa clé est dans BREVO_API_KEY et son quota est de 500 envois par jour.
`,
  'permanent/nightly-backup.md': `---
title: Dump nocturne
type: runbook
tags: [backup]
---
Chaque nuit à 2 h, pg_dump écrit une archive chiffrée, copiée hors site selon [[offsite-storage]].
`,
  'permanent/offsite-storage.md': `---
title: Stockage hors site
type: reference
tags: [backup]
---
Les copies vont dans un bucket S3 à Francfort, gardées trente jours, chiffrées avec une clé age.
`,
  'permanent/developer-onboarding.md': `---
title: Arrivée d'un développeur
type: runbook
tags: [equipe]
---
Un nouveau développeur reçoit un compte operator sur le hub, lit la doctrine, puis suit [[local-setup]].
`,
  'permanent/local-setup.md': `---
title: Poste de travail
type: reference
tags: [outillage]
---
Node 22, npm install puis npm start ; la base embarquée PGlite suffit, sans installer PostgreSQL.
`,
  'daily/2026-03-02.md': `---
title: Journal du 2 mars
type: daily
---
Journée consacrée à la rotation des clés API et au test de restauration de la base.
`,
}

export const CORPUS_REFLEX: Record<string, string> = {
  [REFLEX_INDEX_FILE]: `# Reflex memory
- [Feedback: commits](feedback-commits.md) — commit in the flow, small commits, no amend after push
- [Preferences: founder](preferences-founder.md) — short answers, French first, no emoji
- [Reference: clients](reference-clients.md) — tenants, domains and pre-production URLs
`,
  'feedback-commits.md': `# Feedback: commits
Commiter au fil de l'eau, par petits commits ; ne jamais réécrire l'historique après un push.
`,
  'preferences-founder.md': `# Preferences: founder
Le fondateur préfère des réponses courtes, en français d'abord, sans emoji, avec la décision en première ligne.
`,
  'reference-clients.md': `# Reference: clients
Acme (boutique en ligne, préproduction sur preprod.acme.test), Bistrot (site vitrine), Atelier Nord (application de réservation).
`,
}

const DAY_MS = 86_400_000

function writeFiles(root: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    const absolute = join(root, ...path.split('/'))
    mkdirSync(dirname(absolute), { recursive: true })
    writeFileSync(absolute, text)
  }
}

/** Writes the corpus; `now` dates the lessons (their age matters to the scar re-rank). */
export async function seedEvalCorpus(db: Db, dirs: { vaultDir: string, reflexDir: string }, now = new Date()): Promise<void> {
  await db.insert(learnLessons).values(CORPUS_LESSONS.map(lesson => ({
    kind: lesson.kind,
    title: lesson.title,
    description: lesson.description,
    checkAdded: lesson.checkAdded,
    importance: lesson.importance,
    tags: lesson.tags,
    agent: lesson.agent ?? null,
    learnable: true,
    createdAt: new Date(now.getTime() - lesson.ageDays * DAY_MS),
  })))
  await db.insert(learnDoctrines).values(CORPUS_DOCTRINES)
  await db.insert(learnProcedures).values(CORPUS_PROCEDURES)
  await db.insert(learnDrills).values(CORPUS_DRILLS)
  await db.insert(agents).values(CORPUS_AGENTS)
  await db.insert(agentsReactIterations).values(CORPUS_ITERATIONS)
  for (const [index, chantier] of CORPUS_CHANTIERS.entries()) {
    const [message] = await db.insert(atlasMessages).values({ dedupeKey: `corpus-${index}@studio.test`, rawSha256: '0'.repeat(64), rawSize: 1, mailbox: 'INBOX', subject: chantier.title }).returning({ id: atlasMessages.id })
    await db.insert(workChantiers).values({ ...chantier, sourceMessageId: message!.id, lastMessageId: message!.id, createdBy: 'corpus' })
  }
  writeFiles(dirs.vaultDir, CORPUS_NOTES)
  writeFiles(dirs.reflexDir, CORPUS_REFLEX)
}

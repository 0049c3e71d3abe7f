/**
 * The emulator account that matches a generated repository: in sync with its files, or with any
 * number of resources drifted (the changes a reconcile then has to make). Pure: writes nothing.
 */
import type { EmulatorSeed } from '../../src/emulator/index.js';
import type {
  AppSeed,
  DnsZoneSeed,
  GeneratedRepository,
  GeneratedResource,
  LiveSeed,
  ZoneSeed,
} from './generated-repository.js';

/** How `emulatorSeed` builds the live account. */
export interface SeedOptions {
  /**
   * How many resources differ from their files (default 0: the account is in sync). Spread
   * evenly over the resources edgesync may write (report-only apps never drift), capped at
   * their number. Each drifted resource is exactly one change for the next apply.
   */
  readonly drift?: number;
}

/** The live account for a generated repository, and which resources it drifted. */
export interface GeneratedSeed {
  readonly seed: EmulatorSeed;
  /** Subjects (`kind/name`) whose live object differs from the files, in generation order. */
  readonly drifted: readonly string[];
}

/**
 * The drift of one resource, one change per kind: a rule renamed in the dashboard (E1), a
 * list missing its first entry (E2), a managed list switched off (E3), an app whose `api`
 * container is gone (E4 re-creates it: the path that must never duplicate containers), a
 * zone with DNSSEC flipped (E5 or the enable call).
 */
function drifted(live: LiveSeed): LiveSeed {
  switch (live.kind) {
    case 'WafCustomRule':
      return { kind: live.kind, rule: { ...live.rule, ruleName: `${live.rule.ruleName} (edited live)` } };
    case 'AccessList':
      return { kind: live.kind, list: { ...live.list, entries: (live.list.entries ?? []).slice(1) } };
    case 'ManagedAccessList':
      return { kind: live.kind, list: { ...live.list, isEnabled: !live.list.isEnabled } };
    case 'ContainerApp':
      return {
        kind: live.kind,
        app: { ...live.app, containerTemplates: live.app.containerTemplates.slice(0, 1) },
      };
    case 'DnsZone':
      return { kind: live.kind, zone: { ...live.zone, dnsSecEnabled: live.zone.dnsSecEnabled !== true } };
  }
}

/** Builds the emulator seed matching `repo`, with `options.drift` resources drifted. */
export function emulatorSeed(repo: GeneratedRepository, options: SeedOptions = {}): GeneratedSeed {
  const writable = repo.resources.filter((r) => !r.reportOnly);
  const wanted = Math.min(Math.max(0, Math.floor(options.drift ?? 0)), writable.length);
  const drift = new Set<GeneratedResource>();
  for (const [j, resource] of writable.entries()) {
    // Evenly spread: resource j drifts when the running quota steps up at j.
    if (Math.floor(((j + 1) * wanted) / writable.length) > Math.floor((j * wanted) / writable.length)) {
      drift.add(resource);
    }
  }
  const zones = new Map<
    number,
    Required<Pick<ZoneSeed, 'customRules' | 'customAccessLists' | 'managedAccessLists'>> & ZoneSeed
  >();
  for (const id of repo.shieldZoneIds) {
    // Enterprise: its invented limit of 20 custom lists holds the generator's lists per zone.
    zones.set(id, {
      id,
      planType: 'Enterprise',
      customRules: [],
      customAccessLists: [],
      managedAccessLists: [],
    });
  }
  const apps: AppSeed[] = [];
  const dnsZones: DnsZoneSeed[] = [];
  for (const resource of repo.resources) {
    const live = drift.has(resource) ? drifted(resource.live) : resource.live;
    const zone = zones.get(Number(resource.ids.shieldZoneId));
    switch (live.kind) {
      case 'WafCustomRule':
        zone?.customRules.push(live.rule);
        break;
      case 'AccessList':
        zone?.customAccessLists.push(live.list);
        break;
      case 'ManagedAccessList':
        zone?.managedAccessLists.push(live.list);
        break;
      case 'ContainerApp':
        apps.push(live.app);
        break;
      case 'DnsZone':
        dnsZones.push(live.zone);
        break;
    }
  }
  return {
    seed: { shieldZones: [...zones.values()], apps, dnsZones },
    drifted: [...drift].map((r) => `${r.kind}/${r.name}`),
  };
}

/**
 * The emulator's in-memory state: every object the routes serve, indexed by id.
 *
 * Objects are kept in their wire shape (see `wire.ts`) and returned *live*: a test may read
 * them, or edit them behind the reconciler's back ("out-of-band drift"), and the next reply
 * shows the edit. Derived values (checksum, entry count, timestamps) stay right only through
 * the mutators, so prefer those when the edit touches content.
 */
import { sha256Hex } from '../domain/checksum.js';
import { newDnsZoneModel } from './defaults.js';
import type {
  AccessListRecord,
  DnsZoneRecord,
  RegistryRecord,
  ShieldZoneRecord,
  ZoneLimitOverrides,
} from './records.js';
import { countEntries } from './records.js';
import type {
  Application,
  CustomWafRule,
  DnsZoneModel,
  PullZoneModel,
  Region,
  WafRulesByPlanModel,
} from './wire.js';

export type { AccessListRecord, DnsZoneRecord, ShieldZoneRecord } from './records.js';

/** Sizes of the state, for benchmarks and sanity checks. */
export interface StateCounts {
  shieldZones: number;
  customRules: number;
  customAccessLists: number;
  managedAccessLists: number;
  apps: number;
  dnsZones: number;
}

function insertSorted(list: number[], value: number): void {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((list[mid] as number) < value) lo = mid + 1;
    else hi = mid;
  }
  list.splice(lo, 0, value);
}

/** Fields an E3-style configuration change may set. */
export interface ConfigurationChange {
  isEnabled?: boolean;
  action?: number;
}

/**
 * The whole emulated account. Getters return live objects or undefined; mutators throw a
 * plain Error on an unknown id (a test bug, not an API condition).
 */
export class EmulatorState {
  readonly #zones = new Map<number, ShieldZoneRecord>();
  readonly #rules = new Map<number, CustomWafRule>();
  readonly #apps = new Map<string, Application>();
  readonly #nodeSelectors = new Map<string, Record<string, string>>();
  /** Volume ids per app, by volume name (the app GET has none; the volume listing has them). */
  readonly #volumeIds = new Map<string, Map<string, string>>();
  readonly #dnsZones = new Map<number, DnsZoneRecord>();
  readonly #pullZones = new Map<number, PullZoneModel>();
  #lastTimestamp = 0;
  #counter = 0;
  #configurationSeq = 900_000;
  /** Highest custom rule id and list id so far: created objects get the next one, as a database would. */
  #maxRuleId = 0;
  #maxListId = 0;

  /** E7's answer. */
  optimalRegion: Region;
  /** The region catalogue `GET /mc/regions` pages through. */
  regions: Region[];
  /** E8's catalogue. */
  wafCatalog: WafRulesByPlanModel[];
  /**
   * The container registries `GET /mc/registries` lists: the platform's public ones (the seed's,
   * or Docker Hub and GitHub), then those `POST /mc/registries` added. Of a password only its
   * first and last two characters are kept, as the API shows them.
   */
  registries: RegistryRecord[] = [
    { id: 1, displayName: 'Docker Hub', hostName: 'docker.io' },
    { id: 2, displayName: 'GitHub', hostName: 'ghcr.io' },
  ];

  constructor(defaults: { optimalRegion: Region; regions: Region[]; wafCatalog: WafRulesByPlanModel[] }) {
    this.optimalRegion = defaults.optimalRegion;
    this.regions = defaults.regions;
    this.wafCatalog = defaults.wafCatalog;
  }

  /**
   * An ISO timestamp strictly later than every one handed out before, so two changes in the
   * same millisecond still give two different `lastModified` values.
   */
  now(): string {
    const ms = Math.max(Date.now(), this.#lastTimestamp + 1);
    this.#lastTimestamp = ms;
    return new Date(ms).toISOString();
  }

  /** A fresh opaque id: `prefix` + a counter in base 36, zero-padded (deterministic per run). */
  nextId(prefix: string): string {
    this.#counter += 1;
    return `${prefix}${this.#counter.toString(36).padStart(10, '0')}`;
  }

  /** A fresh integer (pull zone ids of new CDN endpoints, generated configuration ids). */
  nextNumber(): number {
    this.#configurationSeq += 1;
    return this.#configurationSeq;
  }

  // ---- Shield zones -------------------------------------------------------------------

  /** Adds an empty Shield Zone (throws if the id exists); limits left out follow the plan. */
  addShieldZone(zone: {
    id: number;
    pullZoneId: number;
    planType: number;
    limits?: ZoneLimitOverrides;
  }): ShieldZoneRecord {
    if (this.#zones.has(zone.id)) throw new Error(`shield zone ${zone.id} already exists`);
    const record: ShieldZoneRecord = {
      id: zone.id,
      pullZoneId: zone.pullZoneId,
      planType: zone.planType,
      limits: { ...zone.limits },
      ruleIds: [],
      accessLists: new Map(),
      configurations: new Map(),
      botCategories: undefined,
      apiGuardian: undefined,
    };
    this.#zones.set(zone.id, record);
    return record;
  }

  /** The live Shield Zone record. */
  shieldZone(id: number): ShieldZoneRecord | undefined {
    return this.#zones.get(id);
  }

  /** All Shield Zones in id order. */
  shieldZones(): ShieldZoneRecord[] {
    return [...this.#zones.values()].sort((a, b) => a.id - b.id);
  }

  #zoneOrThrow(id: number): ShieldZoneRecord {
    const zone = this.#zones.get(id);
    if (zone === undefined) throw new Error(`unknown shield zone ${id}`);
    return zone;
  }

  // ---- Custom WAF rules ---------------------------------------------------------------

  /** Adds a custom rule to its zone (`rule.shieldZoneId` must exist; the id must be new). */
  addCustomRule(rule: CustomWafRule): CustomWafRule {
    const zone = this.#zoneOrThrow(rule.shieldZoneId);
    if (this.#rules.has(rule.id)) throw new Error(`custom rule ${rule.id} already exists`);
    this.#rules.set(rule.id, rule);
    insertSorted(zone.ruleIds, rule.id);
    this.#maxRuleId = Math.max(this.#maxRuleId, rule.id);
    return rule;
  }

  /** The id the next created custom rule gets (ids are never reused). */
  nextRuleId(): number {
    return this.#maxRuleId + 1;
  }

  /** Deletes a custom rule from its zone (throws on an unknown id). */
  removeCustomRule(id: number): CustomWafRule {
    const rule = this.#rules.get(id);
    if (rule === undefined) throw new Error(`unknown custom rule ${id}`);
    const zone = this.#zoneOrThrow(rule.shieldZoneId);
    zone.ruleIds.splice(zone.ruleIds.indexOf(id), 1);
    this.#rules.delete(id);
    return rule;
  }

  /** The live custom rule (any zone). */
  customRule(id: number): CustomWafRule | undefined {
    return this.#rules.get(id);
  }

  /** A zone's custom rules in id order (empty for an unknown zone). */
  customRules(shieldZoneId: number): CustomWafRule[] {
    const zone = this.#zones.get(shieldZoneId);
    if (zone === undefined) return [];
    return zone.ruleIds.map((id) => this.#rules.get(id) as CustomWafRule);
  }

  /** Shallow-merges `patch` into a rule (ruleConfiguration is replaced whole when given). */
  updateCustomRule(id: number, patch: Partial<Omit<CustomWafRule, 'id' | 'shieldZoneId'>>): CustomWafRule {
    const rule = this.#rules.get(id);
    if (rule === undefined) throw new Error(`unknown custom rule ${id}`);
    Object.assign(rule, patch);
    return rule;
  }

  // ---- Access lists -------------------------------------------------------------------

  /**
   * Adds a custom or managed list to a zone. Checksum, entry count and lastModified are
   * derived from `content`; a missing configurationId gets a fresh one.
   */
  addAccessList(input: {
    kind: 'custom' | 'managed';
    shieldZoneId: number;
    listId: number;
    configurationId?: number;
    name: string;
    description?: string | null;
    type: number;
    content?: string;
    entryCount?: number;
    isEnabled: boolean;
    action: number;
    category?: number;
    requiredPlan?: number;
    updateFrequency?: string | null;
  }): AccessListRecord {
    const zone = this.#zoneOrThrow(input.shieldZoneId);
    if (zone.accessLists.has(input.listId)) {
      throw new Error(`access list ${input.listId} already exists in shield zone ${zone.id}`);
    }
    let configurationId = input.configurationId;
    if (configurationId === undefined) {
      do configurationId = this.nextNumber();
      while (zone.configurations.has(configurationId));
    } else if (zone.configurations.has(configurationId)) {
      throw new Error(`configuration ${configurationId} already exists in shield zone ${zone.id}`);
    }
    const content = input.content ?? '';
    const record: AccessListRecord = {
      kind: input.kind,
      shieldZoneId: zone.id,
      listId: input.listId,
      configurationId,
      name: input.name,
      description: input.description ?? null,
      type: input.type,
      content,
      checksum: sha256Hex(content),
      entryCount: input.entryCount ?? countEntries(content),
      lastModified: this.now(),
      isEnabled: input.isEnabled,
      action: input.action,
      category: input.category ?? 0,
      requiredPlan: input.requiredPlan ?? 0,
      updateFrequency: input.updateFrequency ?? null,
    };
    zone.accessLists.set(record.listId, record);
    zone.configurations.set(configurationId, record);
    this.#maxListId = Math.max(this.#maxListId, record.listId);
    return record;
  }

  /** The id the next created custom list gets: above every list id of every zone. */
  nextListId(): number {
    return this.#maxListId + 1;
  }

  /** Deletes a list and its configuration from a zone (throws on an unknown id). */
  removeAccessList(shieldZoneId: number, listId: number): AccessListRecord {
    const record = this.#listOrThrow(shieldZoneId, listId);
    const zone = this.#zoneOrThrow(shieldZoneId);
    zone.accessLists.delete(listId);
    zone.configurations.delete(record.configurationId);
    return record;
  }

  /** The live list record by list id (custom or managed). */
  accessList(shieldZoneId: number, listId: number): AccessListRecord | undefined {
    return this.#zones.get(shieldZoneId)?.accessLists.get(listId);
  }

  /** The live list record by configuration id (E3's path id). */
  accessListConfig(shieldZoneId: number, configurationId: number): AccessListRecord | undefined {
    return this.#zones.get(shieldZoneId)?.configurations.get(configurationId);
  }

  /**
   * Replaces a list's content exactly as given (no newline normalisation, like the real
   * server) and recomputes checksum, entry count and lastModified. Returns whether it changed.
   */
  setAccessListContent(shieldZoneId: number, listId: number, content: string): boolean {
    const record = this.#listOrThrow(shieldZoneId, listId);
    if (record.content === content) return false;
    record.content = content;
    record.checksum = sha256Hex(content);
    record.entryCount = countEntries(content);
    record.lastModified = this.now();
    return true;
  }

  /** Renames a list, moving lastModified when the name changes. Returns whether it changed. */
  setAccessListName(shieldZoneId: number, listId: number, name: string): boolean {
    const record = this.#listOrThrow(shieldZoneId, listId);
    if (record.name === name) return false;
    record.name = name;
    record.lastModified = this.now();
    return true;
  }

  /** Sets `isEnabled` and/or `action` of a configuration (E3's effect). */
  setConfiguration(
    shieldZoneId: number,
    configurationId: number,
    change: ConfigurationChange,
  ): AccessListRecord {
    const record = this.accessListConfig(shieldZoneId, configurationId);
    if (record === undefined) {
      throw new Error(`unknown configuration ${configurationId} in shield zone ${shieldZoneId}`);
    }
    if (change.isEnabled !== undefined) record.isEnabled = change.isEnabled;
    if (change.action !== undefined) record.action = change.action;
    return record;
  }

  #listOrThrow(shieldZoneId: number, listId: number): AccessListRecord {
    const record = this.accessList(shieldZoneId, listId);
    if (record === undefined) throw new Error(`unknown access list ${listId} in shield zone ${shieldZoneId}`);
    return record;
  }

  // ---- Magic Containers apps ----------------------------------------------------------

  /** Inserts or replaces an app (GET shape). */
  setApp(app: Application, nodeSelectors: Record<string, string> = {}): Application {
    const live = this.#apps.get(app.id);
    if (live !== undefined && live !== app) {
      // Keep the live object's identity so references held by tests stay current.
      for (const key of Object.keys(live)) delete (live as unknown as Record<string, unknown>)[key];
      Object.assign(live, app);
    } else {
      this.#apps.set(app.id, app);
    }
    this.#nodeSelectors.set(app.id, nodeSelectors);
    return this.#apps.get(app.id) as Application;
  }

  /** The live app (a rollout whose time is up settled first). */
  app(appId: string): Application | undefined {
    this.#settle(appId);
    return this.#apps.get(appId);
  }

  /** All apps in insertion order. */
  apps(): Application[] {
    for (const id of this.#apps.keys()) this.#settle(id);
    return [...this.#apps.values()];
  }

  /** Removes an app (its volumes go with it, as the real DELETE's do). */
  deleteApp(appId: string): void {
    if (!this.#apps.delete(appId)) throw new Error(`unknown app ${appId}`);
    this.#nodeSelectors.delete(appId);
    this.#volumeIds.delete(appId);
    this.#rollouts.delete(appId);
  }

  /**
   * The rollout simulation: after a change an app is `progressing` for `rollout.progressingMs`,
   * then `active`, or `failing` when one of its containers runs an image tag in
   * `rollout.failingImageTags`.
   */
  readonly rollout = { progressingMs: 0, failingImageTags: new Set<string>() };
  readonly #rollouts = new Map<string, number>();

  /**
   * Starts a rollout of the app: progressing now, settled on the first read after the delay.
   * `change` (a patch, an endpoint, a restart) rolls out only an app that runs: an undeployed
   * (`inactive`) or suspended one stays as it is until it is deployed.
   */
  startRollout(appId: string, cause: 'deploy' | 'change' = 'change'): void {
    const app = this.#apps.get(appId);
    if (app === undefined) throw new Error(`unknown app ${appId}`);
    if (cause === 'change' && (app.status === 'inactive' || app.status === 'suspended')) return;
    app.status = 'progressing';
    this.#rollouts.set(appId, Date.now() + this.rollout.progressingMs);
    this.#settle(appId);
  }

  /** Undeploys the app: `inactive` at once, and a rollout in progress never settles. */
  stopApp(appId: string): void {
    const app = this.#apps.get(appId);
    if (app === undefined) throw new Error(`unknown app ${appId}`);
    this.#rollouts.delete(appId);
    app.status = 'inactive';
  }

  /** The containers of the app that fail to start, with the reason the overview gives. */
  failingContainers(app: Application): { id: string; name: string; image: string }[] {
    return app.containerTemplates
      .filter((t) => this.rollout.failingImageTags.has(t.imageTag))
      .map((t) => ({ id: t.id, name: t.name, image: t.image }));
  }

  #settle(appId: string): void {
    const due = this.#rollouts.get(appId);
    const app = this.#apps.get(appId);
    if (due === undefined || app === undefined || Date.now() < due) return;
    this.#rollouts.delete(appId);
    app.status = this.failingContainers(app).length > 0 ? 'failing' : 'active';
  }

  /**
   * The ids of an app's current volumes, by name: stable while a volume exists, fresh for a
   * volume created since (a name that was deleted and created again between two listings
   * keeps its id, a shortcut of the emulator).
   */
  volumeIds(appId: string): Map<string, string> {
    const app = this.#apps.get(appId);
    if (app === undefined) throw new Error(`unknown app ${appId}`);
    const known = this.#volumeIds.get(appId) ?? new Map<string, string>();
    const current = new Map<string, string>();
    for (const volume of app.volumes) current.set(volume.name, known.get(volume.name) ?? this.nextId('vol'));
    this.#volumeIds.set(appId, current);
    return current;
  }

  /** The app's last written `regionSettings.nodeSelectors` (write-only in the real API). */
  nodeSelectors(appId: string): Record<string, string> | undefined {
    return this.#nodeSelectors.get(appId);
  }

  // ---- DNS zones ----------------------------------------------------------------------

  /** Adds a DNS zone (throws if the id exists). */
  addDnsZone(zone: {
    id: number;
    domain: string;
    dnsSecEnabled: boolean;
    dsConfigured?: boolean;
  }): DnsZoneRecord {
    if (this.#dnsZones.has(zone.id)) throw new Error(`DNS zone ${zone.id} already exists`);
    const record: DnsZoneRecord = {
      model: newDnsZoneModel(zone.id, zone.domain, zone.dnsSecEnabled, this.now()),
      dsConfigured: zone.dsConfigured ?? false,
    };
    this.#dnsZones.set(zone.id, record);
    return record;
  }

  /** The live zone model (what `GET /dnszone/{id}` serves). */
  dnsZone(id: number): DnsZoneModel | undefined {
    return this.#dnsZones.get(id)?.model;
  }

  /** Every DNS zone, by ascending id (the listing's order). */
  dnsZoneRecords(): DnsZoneRecord[] {
    return [...this.#dnsZones.values()].sort((a, b) => a.model.Id - b.model.Id);
  }

  /** The zone record with its DNSSEC extras. */
  dnsZoneRecord(id: number): DnsZoneRecord | undefined {
    return this.#dnsZones.get(id);
  }

  /** Switches DNSSEC; returns whether it changed. DateModified moves only on a change. */
  setDnssec(id: number, enabled: boolean): boolean {
    const record = this.#dnsZones.get(id);
    if (record === undefined) throw new Error(`unknown DNS zone ${id}`);
    if (record.model.DnsSecEnabled === enabled) return false;
    record.model.DnsSecEnabled = enabled;
    record.model.DateModified = this.now();
    return true;
  }

  /**
   * Adds a pull zone. Its system hostname `<name>.b-cdn.net` comes first, as the API lists it;
   * hostname ids are the pull zone's id times 100 plus the position.
   */
  addPullZone(zone: { id: number; name: string; hostnames: readonly string[] }): PullZoneModel {
    if (this.#pullZones.has(zone.id)) throw new Error(`pull zone ${zone.id} already exists`);
    const hostname = (value: string, index: number, system: boolean) => ({
      Id: zone.id * 100 + index,
      Value: value,
      ForceSSL: false,
      IsSystemHostname: system,
      IsManagedHostname: false,
      HasCertificate: system,
    });
    const model: PullZoneModel = {
      Id: zone.id,
      Name: zone.name,
      OriginUrl: `https://origin.${zone.name}.example`,
      Enabled: true,
      Suspended: false,
      Hostnames: [
        hostname(`${zone.name}.b-cdn.net`, 0, true),
        ...zone.hostnames.map((value, i) => hostname(value, i + 1, false)),
      ],
    };
    this.#pullZones.set(zone.id, model);
    return model;
  }

  /** Every pull zone, by ascending id (the listing's order). */
  pullZones(): PullZoneModel[] {
    return [...this.#pullZones.values()].sort((a, b) => a.Id - b.Id);
  }

  // ---- Totals -------------------------------------------------------------------------

  /** How many objects of each kind the state holds. */
  counts(): StateCounts {
    let custom = 0;
    let managed = 0;
    for (const zone of this.#zones.values()) {
      for (const list of zone.accessLists.values()) {
        if (list.kind === 'custom') custom += 1;
        else managed += 1;
      }
    }
    return {
      shieldZones: this.#zones.size,
      customRules: this.#rules.size,
      customAccessLists: custom,
      managedAccessLists: managed,
      apps: this.#apps.size,
      dnsZones: this.#dnsZones.size,
    };
  }
}

import { Construct } from 'constructs';
import type { AlwaysServe, EndpointInput, EndpointStatus, EndpointSubnet, EndpointType, MonitorHeader } from '../core/model/types';
import { checkHeaders, copyData, PropChecker } from './props-check';
import { addTreeValidation, rejectIfInvalid } from './synth';
import { displayPath, ENDPOINT_SYMBOL, isProfileNode, type EndpointNode, type ProfileNode } from './tree';

/** Props every endpoint kind has. Property names are Azure Resource Manager's. */
export interface EndpointProps {
  /**
   * Endpoint name, unique within its profile (may contain spaces).
   * @default the construct id
   */
  readonly name?: string;
  /**
   * `Disabled` takes the endpoint out of rotation (not probed, never answered).
   * @default 'Enabled'
   */
  readonly endpointStatus?: EndpointStatus;
  /**
   * Weighted routing: share of answers relative to the other endpoints, 1–1000.
   * @default 1
   */
  readonly weight?: number;
  /**
   * Priority routing: 1–1000, lower is preferred, unique within the profile. Give it on every endpoint
   * of the profile or on none.
   * @default the endpoint's position in the profile (1, 2, ...)
   */
  readonly priority?: number;
  /**
   * Geographic routing: region codes from Azure's geographic hierarchy (`WORLD`, `GEO-EU`, `DE`, `US-CA`, ...);
   * each code may be mapped to one endpoint of the profile only.
   * @default none (required on every endpoint of a Geographic profile)
   */
  readonly geoMapping?: string[];
  /**
   * Subnet routing (and subnet override): client address ranges, each CIDR (`{first: '10.0.0.0', scope: 8}`,
   * `first` the network address), a range (`{first, last}`, first ≤ last) or one address (`{first}`);
   * IPv4 or IPv6; ranges of a profile may not overlap. An empty list makes this the fallback endpoint of
   * a Subnet profile.
   * @default none
   */
  readonly subnets?: EndpointSubnet[];
  /**
   * Probe headers for this endpoint, at most 8; override same-named profile headers.
   * @default none
   */
  readonly customHeaders?: MonitorHeader[];
}

/** Props of an endpoint that Azure can probe or always serve (Azure and External endpoints). */
export interface ServedEndpointProps extends EndpointProps {
  /**
   * `Enabled` always treats the endpoint as healthy and stops probing it (monitor status `Unmonitored`).
   * Not available on nested endpoints.
   * @default 'Disabled'
   */
  readonly alwaysServe?: AlwaysServe;
}

/** Props of an External endpoint: any address outside Azure. */
export interface ExternalEndpointProps extends ServedEndpointProps {
  /**
   * The address answered: an FQDN (answered as CNAME), an IPv4 (A) or IPv6 (AAAA) literal; no port. The
   * endpoints of one profile must all use the same kind (IPv4 and IPv6 may mix in MultiValue).
   */
  readonly target: string;
  /**
   * Azure region the endpoint is closest to (`westeurope` or `West Europe`; never `global`). Required
   * when the profile uses Performance routing.
   * @default none
   */
  readonly endpointLocation?: string;
}

/** Props of an Azure endpoint: an Azure resource named by its ARM id. */
export interface AzureEndpointProps extends ServedEndpointProps {
  /**
   * ARM id of the resource: a Web App (or slot), a Public IP address with a DNS label, or a cloud service
   * (`/subscriptions/<id>/resourceGroups/<rg>/providers/Microsoft.Web/sites/<name>`).
   */
  readonly targetResourceId: string;
  /**
   * The resource's DNS name or address, when the runtime's resource catalog does not provide it.
   * @default resolved from the resource catalog (`tmkit serve --resources`)
   */
  readonly target?: string;
  /**
   * The resource's Azure region, when the resource catalog does not provide it.
   * @default resolved from the resource catalog
   */
  readonly endpointLocation?: string;
}

/** Props of a nested endpoint: another profile (the child) answers for this endpoint. */
export interface NestedEndpointProps extends EndpointProps {
  /**
   * The child profile (ARM `targetResourceId`); it must be part of the same document, and nesting may not
   * form a cycle or go deeper than 10 levels.
   */
  readonly targetProfile: ProfileNode;
  /**
   * Azure region of the child, for a Performance parent (required there).
   * @default none
   */
  readonly endpointLocation?: string;
  /**
   * How many child endpoints must be available for this endpoint to count as available, ≥ 1.
   * @default 1
   */
  readonly minChildEndpoints?: number;
  /**
   * Minimum available IPv4 (A) endpoints in the child, ≥ 0.
   * @default not checked
   */
  readonly minChildEndpointsIPv4?: number;
  /**
   * Minimum available IPv6 (AAAA) endpoints in the child, ≥ 0.
   * @default not checked
   */
  readonly minChildEndpointsIPv6?: number;
}

const STATUS = ['Enabled', 'Disabled'] as const;
const MAX_INT = 2147483647;

/** The common part of the three endpoint constructs. Create endpoints inside a `Profile`. */
export abstract class Endpoint extends Construct implements EndpointNode {
  /** True for any tmkit endpoint construct. */
  static isEndpoint(x: unknown): x is Endpoint {
    return typeof x === 'object' && x !== null && ENDPOINT_SYMBOL in x;
  }

  /** The endpoint's `name` in the document. */
  readonly endpointName: string;
  /** The profile this endpoint belongs to (its parent construct). */
  readonly profile: ProfileNode;
  /** `azureEndpoints`, `externalEndpoints` or `nestedEndpoints`. */
  abstract readonly endpointType: EndpointType;
  protected readonly baseProps: EndpointProps;

  protected constructor(scope: Construct, id: string, props: EndpointProps, kind: string, extra: (c: PropChecker) => void) {
    super(scope, id);
    Object.defineProperty(this, ENDPOINT_SYMBOL, { value: true });
    const p: EndpointProps = props ?? {};
    const c = new PropChecker(kind, this.node.path);
    if (!isProfileNode(scope)) {
      c.fail('scope', `must be a Profile (create endpoints with new ${kind}(profile, id, props)), not ${displayPath(scope)}`);
    }
    const name = p.name ?? id;
    if (typeof name !== 'string' || name.trim() === '' || name.includes('/'))
      c.fail('name', 'must be a non-empty string without "/"', name);
    c.oneOf('endpointStatus', p.endpointStatus, STATUS);
    c.int('weight', p.weight, 1, 1000);
    c.int('priority', p.priority, 1, 1000);
    if (c.array('geoMapping', p.geoMapping)) {
      p.geoMapping!.forEach((g, i) => {
        if (typeof g !== 'string' || g === '') c.fail(`geoMapping[${i}]`, 'must be a region code string', g);
      });
    }
    if (c.array('subnets', p.subnets)) {
      p.subnets!.forEach((s, i) => {
        const o = s as Partial<EndpointSubnet> | null;
        if (typeof o !== 'object' || o === null || typeof o.first !== 'string' || o.first === '') {
          c.fail(`subnets[${i}]`, 'must be { first, last?, scope? } with a non-empty first address', s);
          return;
        }
        if (o.last !== undefined && typeof o.last !== 'string') c.fail(`subnets[${i}].last`, 'must be an address string', o.last);
        if (o.scope !== undefined) c.int(`subnets[${i}].scope`, o.scope, 0, o.first.includes(':') ? 128 : 32);
        if (o.scope !== undefined && o.last !== undefined)
          c.fail(`subnets[${i}]`, 'takes either scope (CIDR) or last (range), not both', s);
      });
    }
    checkHeaders(c, 'customHeaders', p.customHeaders);
    extra(c);
    const owner = isProfileNode(scope) ? `profiles[${(scope as unknown as ProfileNode).profileName}]` : undefined;
    rejectIfInvalid(
      this,
      c,
      kind,
      owner === undefined ? '$' : typeof name === 'string' && name !== '' ? `${owner}.endpoints[${name}]` : owner,
    );
    this.endpointName = name;
    this.profile = scope as unknown as ProfileNode;
    const { name: n, endpointStatus, weight, priority, geoMapping, subnets, customHeaders } = p;
    this.baseProps = copyData({ name: n, endpointStatus, weight, priority, geoMapping, subnets, customHeaders });
    addTreeValidation(this);
  }

  /** The endpoint as a document entry: only the props that were set. */
  toEndpointInput(): EndpointInput {
    const p = this.baseProps;
    const out: EndpointInput = { name: this.endpointName, type: this.endpointType };
    Object.assign(out, this.specificInput());
    if (p.endpointStatus !== undefined) out.endpointStatus = p.endpointStatus;
    if (p.weight !== undefined) out.weight = p.weight;
    if (p.priority !== undefined) out.priority = p.priority;
    if (p.geoMapping !== undefined) out.geoMapping = [...p.geoMapping];
    if (p.subnets !== undefined) out.subnets = p.subnets.map((s) => ({ ...s }));
    if (p.customHeaders !== undefined) out.customHeaders = p.customHeaders.map((h) => ({ name: h.name, value: h.value }));
    return out;
  }

  /** The properties only this endpoint kind has. */
  protected abstract specificInput(): Partial<EndpointInput>;
}

function served(c: PropChecker, p: ServedEndpointProps): void {
  c.oneOf('alwaysServe', p.alwaysServe, STATUS);
  if (p.alwaysServe === 'Enabled' && p.endpointStatus === 'Disabled') {
    c.fail('alwaysServe', 'can only be Enabled on an Enabled endpoint (endpointStatus is Disabled)');
  }
}

function location(c: PropChecker, value: unknown): void {
  c.string('endpointLocation', value);
}

const defined = <T extends object>(o: T): Partial<T> =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;

/** An endpoint outside Azure, answered by FQDN (CNAME) or IP address (A/AAAA). */
export class ExternalEndpoint extends Endpoint {
  readonly endpointType = 'externalEndpoints' as const;
  private readonly props: ExternalEndpointProps;

  constructor(scope: Construct, id: string, props: ExternalEndpointProps) {
    super(scope, id, props, 'ExternalEndpoint', (c) => {
      c.string('target', props?.target, true);
      location(c, props?.endpointLocation);
      served(c, props ?? ({} as ExternalEndpointProps));
    });
    this.props = copyData(props);
  }

  protected specificInput(): Partial<EndpointInput> {
    return defined({ target: this.props.target, endpointLocation: this.props.endpointLocation, alwaysServe: this.props.alwaysServe });
  }
}

/** An Azure resource (Web App, Public IP, cloud service) named by its ARM id. */
export class AzureEndpoint extends Endpoint {
  readonly endpointType = 'azureEndpoints' as const;
  private readonly props: AzureEndpointProps;

  constructor(scope: Construct, id: string, props: AzureEndpointProps) {
    super(scope, id, props, 'AzureEndpoint', (c) => {
      c.string('targetResourceId', props?.targetResourceId, true);
      if (
        typeof props?.targetResourceId === 'string' &&
        props.targetResourceId !== '' &&
        !props.targetResourceId.startsWith('/subscriptions/')
      ) {
        c.fail('targetResourceId', 'must be an ARM resource id starting with /subscriptions/', props.targetResourceId);
      }
      c.string('target', props?.target);
      location(c, props?.endpointLocation);
      served(c, props ?? ({} as AzureEndpointProps));
    });
    this.props = copyData(props);
  }

  protected specificInput(): Partial<EndpointInput> {
    return defined({
      target: this.props.target,
      targetResourceId: this.props.targetResourceId,
      endpointLocation: this.props.endpointLocation,
      alwaysServe: this.props.alwaysServe,
    });
  }
}

/** A child profile used as one endpoint of its parent (nested profiles). */
export class NestedEndpoint extends Endpoint {
  readonly endpointType = 'nestedEndpoints' as const;
  /** The child profile. */
  readonly targetProfile: ProfileNode;
  private readonly props: Omit<NestedEndpointProps, 'targetProfile'>;

  constructor(scope: Construct, id: string, props: NestedEndpointProps) {
    super(scope, id, props, 'NestedEndpoint', (c) => {
      const child = props?.targetProfile;
      if (!isProfileNode(child))
        c.fail(
          'targetProfile',
          'must be a Profile construct (the child profile object, not its name)',
          typeof child === 'string' ? child : typeof child,
        );
      else if (child === (scope as unknown)) c.fail('targetProfile', 'must be another profile: a profile cannot nest itself');
      location(c, props?.endpointLocation);
      c.int('minChildEndpoints', props?.minChildEndpoints, 1, MAX_INT);
      c.int('minChildEndpointsIPv4', props?.minChildEndpointsIPv4, 0, MAX_INT);
      c.int('minChildEndpointsIPv6', props?.minChildEndpointsIPv6, 0, MAX_INT);
      if ((props as { alwaysServe?: unknown } | undefined)?.alwaysServe !== undefined) {
        c.fail('alwaysServe', 'is not available on nested endpoints (Azure rejects Always Serve there)');
      }
    });
    this.targetProfile = props.targetProfile;
    const { targetProfile: _child, ...rest } = props;
    this.props = copyData(rest);
  }

  protected specificInput(): Partial<EndpointInput> {
    return defined({
      targetResourceId: this.targetProfile.profileName,
      endpointLocation: this.props.endpointLocation,
      minChildEndpoints: this.props.minChildEndpoints,
      minChildEndpointsIPv4: this.props.minChildEndpointsIPv4,
      minChildEndpointsIPv6: this.props.minChildEndpointsIPv6,
    });
  }
}

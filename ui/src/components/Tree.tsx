import type { TreeNode } from '../lib/tree';
import { hrefProfile } from '../router';
import { StatusBadge } from './common';

/** The nesting tree: a profile's endpoints, and under each nested endpoint its child profile. */
export function Tree({ node, root = true }: { node: TreeNode; root?: boolean }) {
  return (
    <ul class={root ? 'tree root' : 'tree'} data-testid={root ? 'tree' : undefined}>
      <li data-testid={`tree-profile-${node.profile}`}>
        <span class="node">
          {root ? <strong>{node.profile}</strong> : <a href={hrefProfile(node.profile)}>{node.profile}</a>}{' '}
          {node.status ? <StatusBadge status={node.status.profileMonitorStatus} /> : <span class="error">{node.missing}</span>}
          {node.status ? <span class="muted"> {node.status.fqdn}</span> : null}
        </span>
        <ul class="tree">
          {node.endpoints.map((e) => (
            <li key={e.name} data-testid={`tree-endpoint-${node.profile}-${e.name}`}>
              <span class="node">
                {e.name} <StatusBadge status={e.monitorStatus} />
                <span class="muted">
                  {' '}
                  {e.type.replace(/Endpoints$/, '')}
                  {e.target ? ` → ${e.target}` : ''}
                </span>
                {e.cycle ? <span class="error"> (cycle)</span> : null}
              </span>
              {e.child ? <Tree node={e.child} root={false} /> : null}
            </li>
          ))}
        </ul>
      </li>
    </ul>
  );
}

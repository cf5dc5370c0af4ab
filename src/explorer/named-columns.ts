/**
 * The columns a Log Explorer query names, read from DuckDB's own parse tree of it (`json_serialize_sql`,
 * statement-check.ts), so its `http_requests` view can be made of those columns only (explorer-view.ts):
 * DuckDB binds every column of a view for every query that reads it, and the dataset's 108 cost ~2 ms a
 * query where the three a GROUP BY names cost next to nothing.
 *
 * A narrower view must never change an answer, so anything that reaches columns without naming them makes
 * the query read the whole view: `*` and `COLUMNS(…)` (a STAR in the tree), a positional reference (`#1`),
 * a NATURAL join, a table's columns renamed by position (`FROM http_requests h(a, b)`), a table or alias
 * used as a value (`to_json(h)`: a struct of every column), and any table reference or node this module does
 * not know (table functions such as `query_table`, DESCRIBE, PIVOT…). Every name a column reference holds
 * is kept, whatever it turns out to be (an alias, a lambda's parameter, a CTE's column): a name that is no
 * field of the dataset only makes the view no narrower. Pure.
 */

/** The lower-case names a query's column references hold, or `'all'` when it may read any column. */
export type NamedColumns = ReadonlySet<string> | 'all';

/** Nodes without an expression class that cannot reach a column without naming it. */
const knownNodes = new Set([
  'SELECT_NODE',
  'SET_OPERATION_NODE',
  'CTE_NODE',
  'RECURSIVE_CTE_NODE',
  'ORDER_MODIFIER',
  'LIMIT_MODIFIER',
  'LIMIT_PERCENT_MODIFIER',
  'DISTINCT_MODIFIER',
  'ORDER_DEFAULT',
  'ASCENDING',
  'DESCENDING',
  'BASE_TABLE',
  'JOIN',
  'SUBQUERY',
  'EMPTY',
  'EXPRESSION_LIST',
]);

/** How an ORDER BY term orders. */
const orderTypes = new Set(['ORDER_DEFAULT', 'ASCENDING', 'DESCENDING']);

type Node = Record<string, unknown>;

function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A `*` of no table, excluding, replacing, renaming or matching nothing: what `ORDER BY ALL` is parsed to. */
function isBareStar(value: unknown): boolean {
  if (!isNode(value) || value.class !== 'STAR' || value.relation_name !== '' || value.expr !== null) return false;
  return ['exclude_list', 'replace_list', 'qualified_exclude_list', 'rename_list'].every((key) => !Array.isArray(value[key]) || value[key].length === 0);
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/** What the walk has found so far. */
interface Found {
  readonly names: Set<string>;
  /** Names a column reference of one part could mean a whole row by: tables, their aliases, CTEs. */
  readonly relations: Set<string>;
  /** Column references of one part. */
  readonly singles: Set<string>;
}

/** Reads one node into `found`; false when the query may read columns it does not name. */
function readNode(node: Node, found: Found): boolean {
  const expressionClass = node.class;
  if (typeof expressionClass === 'string') {
    if (expressionClass === 'STAR' || expressionClass === 'POSITIONAL_REFERENCE') return false;
    if (expressionClass === 'COLUMN_REF') {
      const parts = strings(node.column_names).map((n) => n.toLowerCase());
      for (const part of parts) found.names.add(part);
      if (parts.length === 1) found.singles.add(parts[0] as string);
    }
    return true;
  }
  const type = node.type;
  if (typeof type === 'string') {
    // A type's description (a cast's DECIMAL(10, 2), VARCHAR[], STRUCT(…)) names no column.
    if (type.endsWith('_TYPE_INFO')) return true;
    if (!knownNodes.has(type)) return false;
    if (type === 'BASE_TABLE' || type === 'SUBQUERY') {
      if (type === 'BASE_TABLE' && strings(node.column_name_alias).length > 0) return false;
      for (const name of [node.table_name, node.alias]) if (typeof name === 'string' && name !== '') found.relations.add(name.toLowerCase());
    }
    if (type === 'JOIN') {
      if (node.ref_type === 'NATURAL') return false;
      for (const name of strings(node.using_columns)) found.names.add(name.toLowerCase());
    }
  }
  const ctes = isNode(node.cte_map) ? node.cte_map.map : undefined;
  if (Array.isArray(ctes)) for (const entry of ctes) if (isNode(entry) && typeof entry.key === 'string') found.relations.add(entry.key.toLowerCase());
  return true;
}

/**
 * The columns the statements of a `json_serialize_sql` tree name (its `statements` member), or `'all'`
 * when one of them may read columns it does not name.
 */
export function namedColumns(statements: unknown): NamedColumns {
  const found: Found = { names: new Set(), relations: new Set(), singles: new Set() };
  const stack: unknown[] = [statements];
  while (stack.length > 0) {
    const value = stack.pop();
    if (Array.isArray(value)) {
      for (const item of value) if (typeof item === 'object' && item !== null) stack.push(item);
      continue;
    }
    if (!isNode(value)) continue;
    if (!readNode(value, found)) return 'all';
    for (const [key, member] of Object.entries(value)) {
      if (typeof member !== 'object' || member === null) continue;
      // `ORDER BY ALL` is a star of the select list's columns, which are named where they are selected.
      if (key === 'expression' && orderTypes.has(value.type as string) && isBareStar(member)) continue;
      stack.push(member);
    }
  }
  for (const single of found.singles) if (found.relations.has(single)) return 'all';
  return found.names;
}

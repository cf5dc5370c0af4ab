import type { DatasetFieldInfo } from '../model/dataset-field.ts';
import { newCondition, newGroup, type FilterDraftNode, type GroupDraft } from '../model/filter-draft.ts';
import { FieldError } from './field-error.tsx';
import { FilterConditionEditor } from './filter-condition-editor.tsx';

/** The changes the builder can make to its tree. */
export interface FilterEdits {
  readonly update: (id: number, change: (node: FilterDraftNode) => FilterDraftNode) => void;
  readonly remove: (id: number) => void;
  readonly append: (groupId: number, child: FilterDraftNode) => void;
}

/**
 * A group of the filter builder: how its conditions combine (and/or), the conditions and nested groups
 * themselves, and buttons to add more. `number` is the group's place ("" for the whole filter, "2" for
 * the second item), which names its conditions "Condition 2.1", "Condition 2.2", ….
 */
export function FilterGroupEditor(props: {
  readonly group: GroupDraft;
  readonly number: string;
  readonly fields: readonly DatasetFieldInfo[];
  readonly problems: ReadonlyMap<number, string>;
  readonly edits: FilterEdits;
}) {
  const { group, edits } = props;
  const isRoot = props.number === '';
  const name = isRoot ? 'Filter conditions' : `Group ${props.number}`;
  const place = (index: number) => (isRoot ? `${index + 1}` : `${props.number}.${index + 1}`);
  const combinatorId = `group-${group.id}-combinator`;

  return (
    <fieldset class={isRoot ? 'filter-group root' : 'filter-group nested'}>
      <legend>{name}</legend>
      {(group.children.length > 1 || !isRoot) && (
        <div class="field inline">
          <label for={combinatorId}>Combine with</label>
          <select
            id={combinatorId}
            value={group.combinator}
            onChange={(e) => {
              const combinator = e.currentTarget.value === 'or' ? 'or' : 'and';
              edits.update(group.id, (node) => (node.kind === 'group' ? { ...node, combinator } : node));
            }}
          >
            <option value="and">and — every condition must match</option>
            <option value="or">or — any condition may match</option>
          </select>
        </div>
      )}
      <FieldError id={`group-${group.id}-error`} message={props.problems.get(group.id)} />
      <ol class="filter-items">
        {group.children.map((child, index) => (
          <li key={child.id}>
            {index > 0 && (
              <span class="joiner" aria-hidden="true">
                {group.combinator}
              </span>
            )}
            {child.kind === 'condition' ? (
              <FilterConditionEditor
                condition={child}
                label={`Condition ${place(index)}`}
                fields={props.fields}
                problem={props.problems.get(child.id)}
                onChange={(next) => edits.update(child.id, () => next)}
                onRemove={() => edits.remove(child.id)}
              />
            ) : (
              <FilterGroupEditor group={child} number={place(index)} fields={props.fields} problems={props.problems} edits={edits} />
            )}
          </li>
        ))}
      </ol>
      <div class="actions">
        <button type="button" aria-label={isRoot ? 'Add condition' : `Add condition to group ${props.number}`} onClick={() => edits.append(group.id, newCondition())}>
          Add condition
        </button>
        <button
          type="button"
          aria-label={isRoot ? 'Add group' : `Add group to group ${props.number}`}
          onClick={() => edits.append(group.id, newGroup(group.combinator === 'and' ? 'or' : 'and'))}
        >
          Add group
        </button>
        {!isRoot && (
          <button type="button" class="link-button danger" aria-label={`Remove group ${props.number}`} onClick={() => edits.remove(group.id)}>
            Remove group
          </button>
        )}
      </div>
    </fieldset>
  );
}

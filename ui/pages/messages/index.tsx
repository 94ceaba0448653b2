// Messages (admin): Kratos courier messages, paged, filtered by status and recipient; a message's
// detail shows its subject and body as text (mail bodies are untrusted HTML: never rendered as
// HTML), and its dispatch attempts with their errors. Kratos outside dev mode withholds every
// subject and body: the pages say so instead of showing its placeholder.
import { api, type CourierMessage } from '../../api.ts'
import { Cell, cellText, DataTable, Row, Wrappable } from '../../components/data-table.tsx'
import { FilterSelect } from '../../components/filter-select.tsx'
import { Heading } from '../../components/heading.tsx'
import { EmptyList, Region, useLoad, useResultsAnnounced } from '../../components/load.tsx'
import { Pager, useTokenPaging } from '../../components/pager.tsx'
import { Time } from '../../components/time.tsx'
import { isUnreadable, UnreadableField, UnreadableRows } from '../../components/unreadable.tsx'
import { asLastShown, location, queryParam, useQueryText } from '../../router.ts'
import { revealHidden, revealIdentifier } from '../../reveal.ts'

/** Why there is no subject or body to show, where a page would have shown them. */
const WITHHELD_NOTE = "Kratos shows a message's subject and body only when it runs in dev mode."

const STATUSES = ['queued', 'processing', 'sent', 'abandoned'].map((name) => ({ value: name, label: name }))

function StatusBadge({ status }: { status: string }) {
  if (!status) return <span class="muted">—</span>
  const tone = status === 'sent' ? 'state-active' : status === 'abandoned' ? 'state-inactive' : 'state-warn'
  return <span class={`state ${tone}`}>{status}</span>
}

export function MessagesPage() {
  const paging = useTokenPaging()
  const status = queryParam('status') ?? ''
  const recipient = queryParam('recipient') ?? ''
  const [typed, setTyped] = useQueryText(recipient)
  const [loaded, retry] = useLoad(
    () => api.messages({ page_size: paging.size, page_token: paging.token || undefined, status: status || undefined, recipient: recipient || undefined }),
    [location.value.search],
  )
  const none = paging.token
    ? 'No more messages.'
    : recipient
      ? 'No message matches this filter: the recipient is matched whole, exactly as written.'
      : status
        ? 'No message matches this filter.'
        : 'No messages.'
  useResultsAnnounced(loaded, location.value.search, ({ items }) => (items.length === 0 ? none : `${items.length} ${items.length === 1 ? 'message' : 'messages'} shown.`))
  return (
    <>
      <Heading>Messages</Heading>
      <div class="toolbar filters">
        <form class="search" role="search" aria-label="Messages" onSubmit={(e) => (e.preventDefault(), paging.restart({ recipient: typed.trim() || null }))}>
          <label for="messages-recipient">Recipient</label>
          <input id="messages-recipient" type="search" placeholder="Exact address" value={typed} autocomplete="off" autocapitalize="none" autocorrect="off" spellcheck={false} onInput={(e) => setTyped(e.currentTarget.value)} />
          <button type="submit">Filter</button>
          {recipient && (
            // The button goes with the filter: focus goes to the box, for the next one.
            <button type="button" onClick={() => (document.getElementById('messages-recipient')?.focus(), paging.restart({ recipient: null }))}>
              All recipients
            </button>
          )}
        </form>
        <FilterSelect label="Status" value={status} all="All statuses" options={STATUSES} unknown="Unknown status" onChange={(chosen) => paging.restart({ status: chosen })} />
      </div>
      {loaded.state === 'ready' && <UnreadableRows count={loaded.data.skipped} noun={['message', 'messages']} from="kratos" />}
      {loaded.state === 'ready' && loaded.data.items.some((message) => message.hidden) && <p class="muted">{WITHHELD_NOTE}</p>}
      <Region loaded={loaded} retry={retry} label="messages" place={paging.place(['status', 'recipient'])}>
        {({ items, skipped }) =>
          items.length === 0 ? (
            skipped === 0 && <EmptyList text={none} firstPage={paging.place([]).firstPage} />
          ) : (
            <DataTable caption="Courier messages, newest first" columns={['Recipient', 'Subject', 'Status', 'Template', 'Created']}>
              {items.map((message) => (
                <Row key={message.id}>
                  <Cell label="Recipient" class="identifier">
                    {message.recipient ? <Wrappable text={cellText(revealIdentifier(message.recipient))} /> : '—'}
                  </Cell>
                  <Cell label="Subject" class="text">
                    <a href={`/dashboard/messages/${encodeURIComponent(message.id)}`}>
                      {message.hidden && message.subject === undefined ? <span class="muted">Hidden by Kratos</span> : cellText(revealHidden(message.subject ?? '')) || '(no subject)'}
                    </a>
                  </Cell>
                  <Cell label="Status">
                    <StatusBadge status={message.status} />
                  </Cell>
                  <Cell label="Template">{message.template_type ? message.template_type.replace(/_/g, ' ') : '—'}</Cell>
                  <Cell label="Created">
                    <Time value={message.created_at} />
                  </Cell>
                </Row>
              ))}
            </DataTable>
          )
        }
      </Region>
      <Pager paging={paging} next={loaded.state === 'ready' ? loaded.data.next : null} />
    </>
  )
}

export function MessagePage({ params }: { params: Record<string, string> }) {
  const [loaded, retry] = useLoad(() => api.message(params.id!), [params.id])
  const title = loaded.state === 'ready' ? titleOf(loaded.data) : 'Message'
  return (
    <>
      <p class="breadcrumb">
        <a href={asLastShown('/dashboard/messages')}>Messages</a>
      </p>
      <Heading>{title}</Heading>
      <Region loaded={loaded} retry={retry} label="the message" missing={{ said: 'Kratos has no message with this ID.', list: { href: asLastShown('/dashboard/messages'), name: 'Messages' } }}>
        {(message) => <MessageDetail message={message} />}
      </Region>
    </>
  )
}

/** The message's subject; without one that Kratos shows, who it went to. */
function titleOf(message: CourierMessage): string {
  if (message.hidden && message.subject === undefined) return message.recipient ? `Message to ${revealHidden(message.recipient)}` : 'Message'
  return revealHidden(message.subject ?? '') || '(no subject)'
}

/** An error as the courier recorded it, as text (a mail server's answer quotes the address it refused). */
function errorText(error: unknown): string {
  if (error === null || error === undefined) return ''
  if (typeof error === 'string') return revealHidden(error)
  if (typeof error === 'object' && typeof (error as { message?: unknown }).message === 'string') {
    const { message, reason } = error as { message: string; reason?: unknown }
    return revealHidden(typeof reason === 'string' && reason ? `${message} (${reason})` : message)
  }
  return JSON.stringify(error)
}

function MessageDetail({ message }: { message: CourierMessage }) {
  const dispatches = message.dispatches
  return (
    <div class="sections">
      <section class="card" aria-labelledby="message-facts-h">
        <h2 id="message-facts-h">Details</h2>
        <dl class="facts">
          <dt>Recipient</dt>
          <dd>{revealIdentifier(message.recipient) || '—'}</dd>
          <dt>Status</dt>
          <dd>
            <StatusBadge status={message.status} />
          </dd>
          <dt>Channel</dt>
          <dd>{message.channel || message.type || '—'}</dd>
          <dt>Template</dt>
          <dd>{message.template_type ? message.template_type.replace(/_/g, ' ') : '—'}</dd>
          <dt>Send attempts</dt>
          <dd>{message.send_count ?? 0}</dd>
          <dt>Created</dt>
          <dd>
            <Time value={message.created_at} />
          </dd>
          <dt>Updated</dt>
          <dd>
            <Time value={message.updated_at} />
          </dd>
        </dl>
      </section>
      <section class="card" aria-labelledby="message-body-h">
        <h2 id="message-body-h">Body</h2>
        {message.hidden && message.body === undefined ? (
          <p class="muted">{WITHHELD_NOTE}</p>
        ) : message.body === undefined ? (
          <UnreadableField what="this message's body" from="kratos" />
        ) : (
          <>
            <p class="muted">Shown as text: the message's HTML is not rendered.</p>
            <pre class="message-body" tabIndex={0} aria-label="Message body">
              {message.body}
            </pre>
          </>
        )}
      </section>
      <section class="card" aria-labelledby="dispatches-h">
        <h2 id="dispatches-h">Dispatch attempts</h2>
        {isUnreadable(message, 'dispatches') && <UnreadableField what="some dispatch attempts" from="kratos" />}
        {dispatches.length === 0 ? (
          !isUnreadable(message, 'dispatches') && <p class="empty">No dispatch attempt yet.</p>
        ) : (
          <ol class="plain">
            {dispatches.map((dispatch, index) => (
              <li key={dispatch.id ?? index}>
                <Time value={dispatch.created_at} /> <span class={`state ${dispatch.status === 'success' ? 'state-active' : 'state-inactive'}`}>{dispatch.status}</span>
                {errorText(dispatch.error) && <span class="mono"> {errorText(dispatch.error)}</span>}
              </li>
            ))}
          </ol>
        )}
      </section>
    </div>
  )
}

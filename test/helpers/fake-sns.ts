import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A loopback SNS speaking the Query protocol the SDK uses (form-encoded `Action=…`, XML answers),
 * for `ListSubscriptionsByTopic` only. Unlike fauxqs, it lists an unconfirmed subscription the way
 * SNS does, with the ARN `PendingConfirmation`. Pages hold `pageSize` subscriptions (SNS: 100).
 */
export interface FakeSns {
  /** Pass as `AWS_ENDPOINT_URL_SNS`. */
  url: string;
  createTopic(name: string): string;
  /** A pending subscription (`confirmed` false, as an e-mail starts) or a confirmed one. */
  subscribe(topicArn: string, protocol: string, endpoint: string, confirmed?: boolean): void;
  /** Every `Action` answered, oldest first. */
  readonly actions: string[];
  close(): Promise<void>;
}

const xml = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

export async function startFakeSns(pageSize = 2): Promise<FakeSns> {
  const topics = new Map<string, { protocol: string; endpoint: string; arn: string }[]>();
  const actions: string[] = [];
  let nextId = 0;
  const xmlns = 'http://sns.amazonaws.com/doc/2010-03-31/';

  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
    const action = form.get('Action') ?? '';
    actions.push(action);
    const send = (status: number, xml: string) => {
      res.writeHead(status, { 'content-type': 'text/xml' });
      res.end(xml);
    };
    const fail = (status: number, code: string, message: string) =>
      send(
        status,
        `<ErrorResponse xmlns="${xmlns}"><Error><Type>Sender</Type><Code>${code}</Code><Message>${xml(message)}</Message></Error><RequestId>r</RequestId></ErrorResponse>`,
      );
    if (action !== 'ListSubscriptionsByTopic')
      return fail(400, 'InvalidAction', `fake SNS does not do '${action}'`);
    const subscriptions = topics.get(form.get('TopicArn') ?? '');
    if (!subscriptions) return fail(404, 'NotFound', 'Topic does not exist');
    const start = Number(form.get('NextToken') ?? 0);
    const page = subscriptions.slice(start, start + pageSize);
    const members = page
      .map(
        (s) =>
          `<member><TopicArn>${xml(form.get('TopicArn') ?? '')}</TopicArn><Protocol>${s.protocol}</Protocol><SubscriptionArn>${xml(s.arn)}</SubscriptionArn><Owner>123456789012</Owner><Endpoint>${xml(s.endpoint)}</Endpoint></member>`,
      )
      .join('');
    const next = start + pageSize < subscriptions.length ? `<NextToken>${start + pageSize}</NextToken>` : '';
    send(
      200,
      `<ListSubscriptionsByTopicResponse xmlns="${xmlns}"><ListSubscriptionsByTopicResult><Subscriptions>${members}</Subscriptions>${next}</ListSubscriptionsByTopicResult><ResponseMetadata><RequestId>r</RequestId></ResponseMetadata></ListSubscriptionsByTopicResponse>`,
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    actions,
    createTopic(name) {
      const arn = `arn:aws:sns:us-east-1:123456789012:${name}`;
      topics.set(arn, []);
      return arn;
    },
    subscribe(topicArn, protocol, endpoint, confirmed = false) {
      nextId += 1;
      topics.get(topicArn)?.push({
        protocol,
        endpoint,
        arn: confirmed ? `${topicArn}:sub-${nextId}` : 'PendingConfirmation',
      });
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

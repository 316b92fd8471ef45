import re, sys, collections, subprocess
# usage: jfrtop.py file.jfr [N]  -> thread-group sample shares and top self frames / top inclusive seglog/kafka frames
f = sys.argv[1]; N = int(sys.argv[2]) if len(sys.argv) > 2 else 25
txt = subprocess.run(['jfr', 'print', '--events', 'jdk.ExecutionSample', f], capture_output=True, text=True).stdout
evs = txt.split('jdk.ExecutionSample {')
groups = collections.Counter(); top = collections.Counter(); incl = collections.Counter(); total = 0
def group(t):
    t = re.sub(r'\d+', 'N', t)
    return t
for e in evs:
    m = re.search(r'sampledThread = "([^"]*)"', e)
    if not m: continue
    frames = re.findall(r'^\s+([\w\.$<>]+)\(.*?\)\s+line:', e, re.M)
    if not frames: continue
    total += 1
    groups[group(m.group(1))] += 1
    top[frames[0]] += 1
    seen = set()
    for fr in frames:
        if fr in seen: continue
        seen.add(fr); incl[fr] += 1
print('samples', total)
for k, v in groups.most_common(12): print('  %5.1f%% thread %s' % (100.0 * v / total, k))
print('top self:')
for k, v in top.most_common(N): print('  %5.1f%% %s' % (100.0 * v / total, k))
print('top inclusive (seglog/kafka/netty):')
for k, v in incl.most_common(400):
    if any(x in k for x in ('io.seglog', 'kafka.', 'org.apache.kafka', 'io.netty.channel.nio', 'sun.nio.ch', 'FileChannelImpl')):
        print('  %5.1f%% %s' % (100.0 * v / total, k))
        N -= 1
        if N < 0: break

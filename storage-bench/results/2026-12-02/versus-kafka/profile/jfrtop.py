import json, sys, collections, subprocess
# usage: jfrtop.py file.jfr [thread-substring-filter]
f = sys.argv[1]
flt = sys.argv[2] if len(sys.argv) > 2 else None
out = subprocess.run(['jfr', 'print', '--json', '--stack-depth','64','--events', 'jdk.ExecutionSample', f], capture_output=True, text=True).stdout
data = json.loads(out)
events = data['recording']['events']
top = collections.Counter(); incl = collections.Counter(); threads = collections.Counter(); pkg = collections.Counter()
n = 0
for e in events:
    v = e['values']
    t = v['sampledThread']['javaName'] or v['sampledThread']['osName']
    tg = ''.join(c if not c.isdigit() else '#' for c in t)
    threads[tg] += 1
    if flt and flt not in t: continue
    frames = v['stackTrace']['frames'] if v['stackTrace'] else []
    if not frames: continue
    n += 1
    def name(fr):
        m = fr['method']; return m['type']['name'] + '.' + m['name']
    top[name(frames[0])] += 1
    seen = set()
    for fr in frames:
        nm = name(fr)
        if nm not in seen:
            seen.add(nm); incl[nm] += 1
print('samples', len(events), 'filtered', n)
print('--- threads'); [print(f'{c:6d} {k}') for k, c in threads.most_common(25)]
print('--- top self'); [print(f'{c:6d} {100*c/max(n,1):5.1f}% {k}') for k, c in top.most_common(30)]
print('--- top inclusive (io.seglog / kafka / netty / nio)')
for k, c in [x for x in incl.most_common(2000) if any(s in x[0] for s in ('seglog','kafka','netty','sun.nio','FileChannel'))][:45]:
    print(f'{c:6d} {100*c/max(n,1):5.1f}% {k}')

import json,statistics as st,sys
g='/work/main/docs/runs/2026-11-26c-h200-seeds/models'
c='/work/main/out/models'
def card(p):
    try: return json.load(open(p))
    except Exception: return None
for m,keys in [('eqf',['val_loss_ema','final_loss','readout_sigma_mae','next_chunk_psnr_nag_closed','agreement_nag_closed','drift_ratio_nag_closed','fvd_nag_closed','next_chunk_psnr_gd_open','agreement_gd_open']),('fm',['val_loss_ema','final_loss','next_chunk_psnr_euler','agreement_euler','drift_ratio_euler','fvd_euler'])]:
    gs=[card(f'{g}/{m}/card.json'),card(f'{g}/seed-2/{m}/card.json'),card(f'{g}/seed-3/{m}/card.json')]
    cs=[card(f'{c}/{m}/card.json'),card(f'{c}/seed-2/{m}/card.json'),card(f'{c}/seed-3/{m}/card.json')]
    print(f'## {m}: GPU seeds 1-3 | GPU between-seed SD | CPU seeds available | CPU−GPU per seed')
    for k in keys:
        gv=[x['metrics'][k] for x in gs if x]
        cv=[x['metrics'].get(k) if x else None for x in cs]
        sd=st.stdev(gv) if len(gv)>1 else float('nan')
        diffs=[(cv[i]-gv[i]) if cv[i] is not None else None for i in range(3)]
        print(k, [round(v,4) for v in gv], 'sd', round(sd,4), 'cpu', [None if v is None else round(v,4) for v in cv], 'diff', [None if d is None else round(d,4) for d in diffs])

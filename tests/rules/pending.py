NOT_IN_DEMO_YET: dict[str, str] = {}

"NOT_IN_DEMO_YET: dict[str, str] = {}

"NOT_IN_DEMO_YET: dict[str, str] = {}

"NOT_IN_DEMO_YET: dict[str, str] = {}

TNOT_IN_DEMO_YET: dict[str, str] = {}

hNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

oNOT_IN_DEMO_YET: dict[str, str] = {}

nNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

lNOT_IN_DEMO_YET: dict[str, str] = {}

iNOT_IN_DEMO_YET: dict[str, str] = {}

sNOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

oNOT_IN_DEMO_YET: dict[str, str] = {}

fNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

wNOT_IN_DEMO_YET: dict[str, str] = {}

hNOT_IN_DEMO_YET: dict[str, str] = {}

aNOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

hNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

dNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

mNOT_IN_DEMO_YET: dict[str, str] = {}

oNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

hNOT_IN_DEMO_YET: dict[str, str] = {}

oNOT_IN_DEMO_YET: dict[str, str] = {}

sNOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

dNOT_IN_DEMO_YET: dict[str, str] = {}

oNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

sNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

nNOT_IN_DEMO_YET: dict[str, str] = {}

oNOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

sNOT_IN_DEMO_YET: dict[str, str] = {}

hNOT_IN_DEMO_YET: dict[str, str] = {}

oNOT_IN_DEMO_YET: dict[str, str] = {}

wNOT_IN_DEMO_YET: dict[str, str] = {}

,NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

fNOT_IN_DEMO_YET: dict[str, str] = {}

oNOT_IN_DEMO_YET: dict[str, str] = {}

rNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

hNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

lNOT_IN_DEMO_YET: dict[str, str] = {}

iNOT_IN_DEMO_YET: dict[str, str] = {}

vNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

qNOT_IN_DEMO_YET: dict[str, str] = {}

uNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

rNOT_IN_DEMO_YET: dict[str, str] = {}

yNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

sNOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

sNOT_IN_DEMO_YET: dict[str, str] = {}

.NOT_IN_DEMO_YET: dict[str, str] = {}


NOT_IN_DEMO_YET: dict[str, str] = {}


NOT_IN_DEMO_YET: dict[str, str] = {}

`NOT_IN_DEMO_YET: dict[str, str] = {}

`NOT_IN_DEMO_YET: dict[str, str] = {}

NNOT_IN_DEMO_YET: dict[str, str] = {}

ONOT_IN_DEMO_YET: dict[str, str] = {}

TNOT_IN_DEMO_YET: dict[str, str] = {}

_NOT_IN_DEMO_YET: dict[str, str] = {}

INOT_IN_DEMO_YET: dict[str, str] = {}

NNOT_IN_DEMO_YET: dict[str, str] = {}

_NOT_IN_DEMO_YET: dict[str, str] = {}

DNOT_IN_DEMO_YET: dict[str, str] = {}

ENOT_IN_DEMO_YET: dict[str, str] = {}

MNOT_IN_DEMO_YET: dict[str, str] = {}

ONOT_IN_DEMO_YET: dict[str, str] = {}

_NOT_IN_DEMO_YET: dict[str, str] = {}

YNOT_IN_DEMO_YET: dict[str, str] = {}

ENOT_IN_DEMO_YET: dict[str, str] = {}

TNOT_IN_DEMO_YET: dict[str, str] = {}

`NOT_IN_DEMO_YET: dict[str, str] = {}

`NOT_IN_DEMO_YET: dict[str, str] = {}

:NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

cNOT_IN_DEMO_YET: dict[str, str] = {}

oNOT_IN_DEMO_YET: dict[str, str] = {}

lNOT_IN_DEMO_YET: dict[str, str] = {}

lNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

cNOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

oNOT_IN_DEMO_YET: dict[str, str] = {}

rNOT_IN_DEMO_YET: dict[str, str] = {}

sNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

oNOT_IN_DEMO_YET: dict[str, str] = {}

rNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

dNOT_IN_DEMO_YET: dict[str, str] = {}

aNOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

aNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

hNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

dNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

mNOT_IN_DEMO_YET: dict[str, str] = {}

oNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

hNOT_IN_DEMO_YET: dict[str, str] = {}

oNOT_IN_DEMO_YET: dict[str, str] = {}

sNOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

dNOT_IN_DEMO_YET: dict[str, str] = {}

oNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

sNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

nNOT_IN_DEMO_YET: dict[str, str] = {}

oNOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

sNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

rNOT_IN_DEMO_YET: dict[str, str] = {}

vNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

yNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

.NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

ANOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

rNOT_IN_DEMO_YET: dict[str, str] = {}

uNOT_IN_DEMO_YET: dict[str, str] = {}

lNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

oNOT_IN_DEMO_YET: dict[str, str] = {}

rNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

pNOT_IN_DEMO_YET: dict[str, str] = {}

aNOT_IN_DEMO_YET: dict[str, str] = {}

nNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

lNOT_IN_DEMO_YET: dict[str, str] = {}


NOT_IN_DEMO_YET: dict[str, str] = {}

qNOT_IN_DEMO_YET: dict[str, str] = {}

uNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

rNOT_IN_DEMO_YET: dict[str, str] = {}

yNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

hNOT_IN_DEMO_YET: dict[str, str] = {}

aNOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

rNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

aNOT_IN_DEMO_YET: dict[str, str] = {}

dNOT_IN_DEMO_YET: dict[str, str] = {}

sNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

oNOT_IN_DEMO_YET: dict[str, str] = {}

nNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

iNOT_IN_DEMO_YET: dict[str, str] = {}

sNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

xNOT_IN_DEMO_YET: dict[str, str] = {}

fNOT_IN_DEMO_YET: dict[str, str] = {}

aNOT_IN_DEMO_YET: dict[str, str] = {}

iNOT_IN_DEMO_YET: dict[str, str] = {}

lNOT_IN_DEMO_YET: dict[str, str] = {}

,NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

wNOT_IN_DEMO_YET: dict[str, str] = {}

iNOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

hNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

hNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

rNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

aNOT_IN_DEMO_YET: dict[str, str] = {}

sNOT_IN_DEMO_YET: dict[str, str] = {}

oNOT_IN_DEMO_YET: dict[str, str] = {}

nNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

gNOT_IN_DEMO_YET: dict[str, str] = {}

iNOT_IN_DEMO_YET: dict[str, str] = {}

vNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

nNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

hNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

rNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

.NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

WNOT_IN_DEMO_YET: dict[str, str] = {}

hNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

nNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

hNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

dNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

mNOT_IN_DEMO_YET: dict[str, str] = {}

oNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

gNOT_IN_DEMO_YET: dict[str, str] = {}

aNOT_IN_DEMO_YET: dict[str, str] = {}

iNOT_IN_DEMO_YET: dict[str, str] = {}

nNOT_IN_DEMO_YET: dict[str, str] = {}

sNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

hNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

dNOT_IN_DEMO_YET: dict[str, str] = {}

aNOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

aNOT_IN_DEMO_YET: dict[str, str] = {}

,NOT_IN_DEMO_YET: dict[str, str] = {}


NOT_IN_DEMO_YET: dict[str, str] = {}

dNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

lNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

hNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

nNOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

rNOT_IN_DEMO_YET: dict[str, str] = {}

yNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

(NOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

hNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

lNOT_IN_DEMO_YET: dict[str, str] = {}

iNOT_IN_DEMO_YET: dict[str, str] = {}

vNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

sNOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

wNOT_IN_DEMO_YET: dict[str, str] = {}

aNOT_IN_DEMO_YET: dict[str, str] = {}

rNOT_IN_DEMO_YET: dict[str, str] = {}

nNOT_IN_DEMO_YET: dict[str, str] = {}

sNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

aNOT_IN_DEMO_YET: dict[str, str] = {}

bNOT_IN_DEMO_YET: dict[str, str] = {}

oNOT_IN_DEMO_YET: dict[str, str] = {}

uNOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

nNOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

rNOT_IN_DEMO_YET: dict[str, str] = {}

iNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

sNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

hNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

dNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

mNOT_IN_DEMO_YET: dict[str, str] = {}

oNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

aNOT_IN_DEMO_YET: dict[str, str] = {}

lNOT_IN_DEMO_YET: dict[str, str] = {}

rNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

aNOT_IN_DEMO_YET: dict[str, str] = {}

dNOT_IN_DEMO_YET: dict[str, str] = {}

yNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

sNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

rNOT_IN_DEMO_YET: dict[str, str] = {}

vNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

sNOT_IN_DEMO_YET: dict[str, str] = {}

)NOT_IN_DEMO_YET: dict[str, str] = {}

.NOT_IN_DEMO_YET: dict[str, str] = {}


NOT_IN_DEMO_YET: dict[str, str] = {}


NOT_IN_DEMO_YET: dict[str, str] = {}

`NOT_IN_DEMO_YET: dict[str, str] = {}

`NOT_IN_DEMO_YET: dict[str, str] = {}

ANOT_IN_DEMO_YET: dict[str, str] = {}

BNOT_IN_DEMO_YET: dict[str, str] = {}

SNOT_IN_DEMO_YET: dict[str, str] = {}

ENOT_IN_DEMO_YET: dict[str, str] = {}

NNOT_IN_DEMO_YET: dict[str, str] = {}

TNOT_IN_DEMO_YET: dict[str, str] = {}

_NOT_IN_DEMO_YET: dict[str, str] = {}

BNOT_IN_DEMO_YET: dict[str, str] = {}

YNOT_IN_DEMO_YET: dict[str, str] = {}

_NOT_IN_DEMO_YET: dict[str, str] = {}

DNOT_IN_DEMO_YET: dict[str, str] = {}

ENOT_IN_DEMO_YET: dict[str, str] = {}

SNOT_IN_DEMO_YET: dict[str, str] = {}

INOT_IN_DEMO_YET: dict[str, str] = {}

GNOT_IN_DEMO_YET: dict[str, str] = {}

NNOT_IN_DEMO_YET: dict[str, str] = {}

`NOT_IN_DEMO_YET: dict[str, str] = {}

`NOT_IN_DEMO_YET: dict[str, str] = {}

:NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

dNOT_IN_DEMO_YET: dict[str, str] = {}

aNOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

aNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

hNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

dNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

mNOT_IN_DEMO_YET: dict[str, str] = {}

oNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

hNOT_IN_DEMO_YET: dict[str, str] = {}

oNOT_IN_DEMO_YET: dict[str, str] = {}

sNOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

cNOT_IN_DEMO_YET: dict[str, str] = {}

aNOT_IN_DEMO_YET: dict[str, str] = {}

nNOT_IN_DEMO_YET: dict[str, str] = {}

nNOT_IN_DEMO_YET: dict[str, str] = {}

oNOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

hNOT_IN_DEMO_YET: dict[str, str] = {}

aNOT_IN_DEMO_YET: dict[str, str] = {}

vNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

(NOT_IN_DEMO_YET: dict[str, str] = {}

hNOT_IN_DEMO_YET: dict[str, str] = {}

aNOT_IN_DEMO_YET: dict[str, str] = {}

rNOT_IN_DEMO_YET: dict[str, str] = {}

dNOT_IN_DEMO_YET: dict[str, str] = {}

wNOT_IN_DEMO_YET: dict[str, str] = {}

aNOT_IN_DEMO_YET: dict[str, str] = {}

rNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

iNOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

dNOT_IN_DEMO_YET: dict[str, str] = {}

oNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

sNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

nNOT_IN_DEMO_YET: dict[str, str] = {}

oNOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

sNOT_IN_DEMO_YET: dict[str, str] = {}

iNOT_IN_DEMO_YET: dict[str, str] = {}

mNOT_IN_DEMO_YET: dict[str, str] = {}

uNOT_IN_DEMO_YET: dict[str, str] = {}

lNOT_IN_DEMO_YET: dict[str, str] = {}

aNOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

,NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

vNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

nNOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

sNOT_IN_DEMO_YET: dict[str, str] = {}


NOT_IN_DEMO_YET: dict[str, str] = {}

iNOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

sNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

rNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

cNOT_IN_DEMO_YET: dict[str, str] = {}

oNOT_IN_DEMO_YET: dict[str, str] = {}

rNOT_IN_DEMO_YET: dict[str, str] = {}

dNOT_IN_DEMO_YET: dict[str, str] = {}

iNOT_IN_DEMO_YET: dict[str, str] = {}

nNOT_IN_DEMO_YET: dict[str, str] = {}

gNOT_IN_DEMO_YET: dict[str, str] = {}

sNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

dNOT_IN_DEMO_YET: dict[str, str] = {}

oNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

nNOT_IN_DEMO_YET: dict[str, str] = {}

oNOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

hNOT_IN_DEMO_YET: dict[str, str] = {}

oNOT_IN_DEMO_YET: dict[str, str] = {}

lNOT_IN_DEMO_YET: dict[str, str] = {}

dNOT_IN_DEMO_YET: dict[str, str] = {}

)NOT_IN_DEMO_YET: dict[str, str] = {}

.NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

QNOT_IN_DEMO_YET: dict[str, str] = {}

uNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

rNOT_IN_DEMO_YET: dict[str, str] = {}

iNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

sNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

rNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

aNOT_IN_DEMO_YET: dict[str, str] = {}

dNOT_IN_DEMO_YET: dict[str, str] = {}

iNOT_IN_DEMO_YET: dict[str, str] = {}

nNOT_IN_DEMO_YET: dict[str, str] = {}

gNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

hNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

mNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

sNOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

iNOT_IN_DEMO_YET: dict[str, str] = {}

lNOT_IN_DEMO_YET: dict[str, str] = {}

lNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

rNOT_IN_DEMO_YET: dict[str, str] = {}

uNOT_IN_DEMO_YET: dict[str, str] = {}

nNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

aNOT_IN_DEMO_YET: dict[str, str] = {}

nNOT_IN_DEMO_YET: dict[str, str] = {}

dNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

mNOT_IN_DEMO_YET: dict[str, str] = {}

uNOT_IN_DEMO_YET: dict[str, str] = {}

sNOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

nNOT_IN_DEMO_YET: dict[str, str] = {}

oNOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

rNOT_IN_DEMO_YET: dict[str, str] = {}

rNOT_IN_DEMO_YET: dict[str, str] = {}

oNOT_IN_DEMO_YET: dict[str, str] = {}

rNOT_IN_DEMO_YET: dict[str, str] = {}

,NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

bNOT_IN_DEMO_YET: dict[str, str] = {}

uNOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

aNOT_IN_DEMO_YET: dict[str, str] = {}

nNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

mNOT_IN_DEMO_YET: dict[str, str] = {}

pNOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

yNOT_IN_DEMO_YET: dict[str, str] = {}


NOT_IN_DEMO_YET: dict[str, str] = {}

rNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

sNOT_IN_DEMO_YET: dict[str, str] = {}

uNOT_IN_DEMO_YET: dict[str, str] = {}

lNOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

fNOT_IN_DEMO_YET: dict[str, str] = {}

oNOT_IN_DEMO_YET: dict[str, str] = {}

rNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

hNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

sNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

sNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

lNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

cNOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

oNOT_IN_DEMO_YET: dict[str, str] = {}

rNOT_IN_DEMO_YET: dict[str, str] = {}

sNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

iNOT_IN_DEMO_YET: dict[str, str] = {}

sNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

xNOT_IN_DEMO_YET: dict[str, str] = {}

pNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

cNOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

dNOT_IN_DEMO_YET: dict[str, str] = {}

,NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

nNOT_IN_DEMO_YET: dict[str, str] = {}

oNOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

aNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

fNOT_IN_DEMO_YET: dict[str, str] = {}

aNOT_IN_DEMO_YET: dict[str, str] = {}

iNOT_IN_DEMO_YET: dict[str, str] = {}

lNOT_IN_DEMO_YET: dict[str, str] = {}

uNOT_IN_DEMO_YET: dict[str, str] = {}

rNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

.NOT_IN_DEMO_YET: dict[str, str] = {}


NOT_IN_DEMO_YET: dict[str, str] = {}

"NOT_IN_DEMO_YET: dict[str, str] = {}

"NOT_IN_DEMO_YET: dict[str, str] = {}

"NOT_IN_DEMO_YET: dict[str, str] = {}


NOT_IN_DEMO_YET: dict[str, str] = {}


NOT_IN_DEMO_YET: dict[str, str] = {}

fNOT_IN_DEMO_YET: dict[str, str] = {}

rNOT_IN_DEMO_YET: dict[str, str] = {}

oNOT_IN_DEMO_YET: dict[str, str] = {}

mNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

_NOT_IN_DEMO_YET: dict[str, str] = {}

_NOT_IN_DEMO_YET: dict[str, str] = {}

fNOT_IN_DEMO_YET: dict[str, str] = {}

uNOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

uNOT_IN_DEMO_YET: dict[str, str] = {}

rNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

_NOT_IN_DEMO_YET: dict[str, str] = {}

_NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

iNOT_IN_DEMO_YET: dict[str, str] = {}

mNOT_IN_DEMO_YET: dict[str, str] = {}

pNOT_IN_DEMO_YET: dict[str, str] = {}

oNOT_IN_DEMO_YET: dict[str, str] = {}

rNOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

aNOT_IN_DEMO_YET: dict[str, str] = {}

nNOT_IN_DEMO_YET: dict[str, str] = {}

nNOT_IN_DEMO_YET: dict[str, str] = {}

oNOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

aNOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

iNOT_IN_DEMO_YET: dict[str, str] = {}

oNOT_IN_DEMO_YET: dict[str, str] = {}

nNOT_IN_DEMO_YET: dict[str, str] = {}

sNOT_IN_DEMO_YET: dict[str, str] = {}


NOT_IN_DEMO_YET: dict[str, str] = {}


NOT_IN_DEMO_YET: dict[str, str] = {}

#NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

MNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

rNOT_IN_DEMO_YET: dict[str, str] = {}

iNOT_IN_DEMO_YET: dict[str, str] = {}

cNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

nNOT_IN_DEMO_YET: dict[str, str] = {}

aNOT_IN_DEMO_YET: dict[str, str] = {}

mNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

sNOT_IN_DEMO_YET: dict[str, str] = {}

,NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

oNOT_IN_DEMO_YET: dict[str, str] = {}

rNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

xNOT_IN_DEMO_YET: dict[str, str] = {}

aNOT_IN_DEMO_YET: dict[str, str] = {}

cNOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

sNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

lNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

cNOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

oNOT_IN_DEMO_YET: dict[str, str] = {}

rNOT_IN_DEMO_YET: dict[str, str] = {}

sNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

aNOT_IN_DEMO_YET: dict[str, str] = {}

sNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

wNOT_IN_DEMO_YET: dict[str, str] = {}

rNOT_IN_DEMO_YET: dict[str, str] = {}

iNOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

nNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

iNOT_IN_DEMO_YET: dict[str, str] = {}

nNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

aNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

rNOT_IN_DEMO_YET: dict[str, str] = {}

uNOT_IN_DEMO_YET: dict[str, str] = {}

lNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

.NOT_IN_DEMO_YET: dict[str, str] = {}


NOT_IN_DEMO_YET: dict[str, str] = {}

NNOT_IN_DEMO_YET: dict[str, str] = {}

ONOT_IN_DEMO_YET: dict[str, str] = {}

TNOT_IN_DEMO_YET: dict[str, str] = {}

_NOT_IN_DEMO_YET: dict[str, str] = {}

INOT_IN_DEMO_YET: dict[str, str] = {}

NNOT_IN_DEMO_YET: dict[str, str] = {}

_NOT_IN_DEMO_YET: dict[str, str] = {}

DNOT_IN_DEMO_YET: dict[str, str] = {}

ENOT_IN_DEMO_YET: dict[str, str] = {}

MNOT_IN_DEMO_YET: dict[str, str] = {}

ONOT_IN_DEMO_YET: dict[str, str] = {}

_NOT_IN_DEMO_YET: dict[str, str] = {}

YNOT_IN_DEMO_YET: dict[str, str] = {}

ENOT_IN_DEMO_YET: dict[str, str] = {}

TNOT_IN_DEMO_YET: dict[str, str] = {}

:NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

dNOT_IN_DEMO_YET: dict[str, str] = {}

iNOT_IN_DEMO_YET: dict[str, str] = {}

cNOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

[NOT_IN_DEMO_YET: dict[str, str] = {}

sNOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

rNOT_IN_DEMO_YET: dict[str, str] = {}

,NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

sNOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

rNOT_IN_DEMO_YET: dict[str, str] = {}

]NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

=NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

{NOT_IN_DEMO_YET: dict[str, str] = {}


NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

"NOT_IN_DEMO_YET: dict[str, str] = {}

zNOT_IN_DEMO_YET: dict[str, str] = {}

mNOT_IN_DEMO_YET: dict[str, str] = {}

oNOT_IN_DEMO_YET: dict[str, str] = {}

nNOT_IN_DEMO_YET: dict[str, str] = {}

_NOT_IN_DEMO_YET: dict[str, str] = {}

pNOT_IN_DEMO_YET: dict[str, str] = {}

oNOT_IN_DEMO_YET: dict[str, str] = {}

oNOT_IN_DEMO_YET: dict[str, str] = {}

lNOT_IN_DEMO_YET: dict[str, str] = {}

_NOT_IN_DEMO_YET: dict[str, str] = {}

sNOT_IN_DEMO_YET: dict[str, str] = {}

cNOT_IN_DEMO_YET: dict[str, str] = {}

aNOT_IN_DEMO_YET: dict[str, str] = {}

nNOT_IN_DEMO_YET: dict[str, str] = {}

_NOT_IN_DEMO_YET: dict[str, str] = {}

rNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

mNOT_IN_DEMO_YET: dict[str, str] = {}

aNOT_IN_DEMO_YET: dict[str, str] = {}

iNOT_IN_DEMO_YET: dict[str, str] = {}

nNOT_IN_DEMO_YET: dict[str, str] = {}

iNOT_IN_DEMO_YET: dict[str, str] = {}

nNOT_IN_DEMO_YET: dict[str, str] = {}

gNOT_IN_DEMO_YET: dict[str, str] = {}

_NOT_IN_DEMO_YET: dict[str, str] = {}

sNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

cNOT_IN_DEMO_YET: dict[str, str] = {}

oNOT_IN_DEMO_YET: dict[str, str] = {}

nNOT_IN_DEMO_YET: dict[str, str] = {}

dNOT_IN_DEMO_YET: dict[str, str] = {}

sNOT_IN_DEMO_YET: dict[str, str] = {}

"NOT_IN_DEMO_YET: dict[str, str] = {}

:NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

(NOT_IN_DEMO_YET: dict[str, str] = {}


NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

"NOT_IN_DEMO_YET: dict[str, str] = {}

zNOT_IN_DEMO_YET: dict[str, str] = {}

pNOT_IN_DEMO_YET: dict[str, str] = {}

oNOT_IN_DEMO_YET: dict[str, str] = {}

oNOT_IN_DEMO_YET: dict[str, str] = {}

lNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

sNOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

aNOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

uNOT_IN_DEMO_YET: dict[str, str] = {}

sNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

-NOT_IN_DEMO_YET: dict[str, str] = {}

jNOT_IN_DEMO_YET: dict[str, str] = {}

,NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

wNOT_IN_DEMO_YET: dict[str, str] = {}

hNOT_IN_DEMO_YET: dict[str, str] = {}

iNOT_IN_DEMO_YET: dict[str, str] = {}

cNOT_IN_DEMO_YET: dict[str, str] = {}

hNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

zNOT_IN_DEMO_YET: dict[str, str] = {}

mNOT_IN_DEMO_YET: dict[str, str] = {}

oNOT_IN_DEMO_YET: dict[str, str] = {}

nNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

rNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

aNOT_IN_DEMO_YET: dict[str, str] = {}

dNOT_IN_DEMO_YET: dict[str, str] = {}

sNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

oNOT_IN_DEMO_YET: dict[str, str] = {}

nNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

ONOT_IN_DEMO_YET: dict[str, str] = {}

pNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

nNOT_IN_DEMO_YET: dict[str, str] = {}

ZNOT_IN_DEMO_YET: dict[str, str] = {}

FNOT_IN_DEMO_YET: dict[str, str] = {}

SNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

2NOT_IN_DEMO_YET: dict[str, str] = {}

.NOT_IN_DEMO_YET: dict[str, str] = {}

3NOT_IN_DEMO_YET: dict[str, str] = {}

,NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

pNOT_IN_DEMO_YET: dict[str, str] = {}

rNOT_IN_DEMO_YET: dict[str, str] = {}

iNOT_IN_DEMO_YET: dict[str, str] = {}

nNOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

sNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

nNOT_IN_DEMO_YET: dict[str, str] = {}

oNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

sNOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

iNOT_IN_DEMO_YET: dict[str, str] = {}

mNOT_IN_DEMO_YET: dict[str, str] = {}

aNOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

aNOT_IN_DEMO_YET: dict[str, str] = {}

nNOT_IN_DEMO_YET: dict[str, str] = {}

dNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

zNOT_IN_DEMO_YET: dict[str, str] = {}

mNOT_IN_DEMO_YET: dict[str, str] = {}

oNOT_IN_DEMO_YET: dict[str, str] = {}

nNOT_IN_DEMO_YET: dict[str, str] = {}

'NOT_IN_DEMO_YET: dict[str, str] = {}

sNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

JNOT_IN_DEMO_YET: dict[str, str] = {}

SNOT_IN_DEMO_YET: dict[str, str] = {}

ONOT_IN_DEMO_YET: dict[str, str] = {}

NNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

"NOT_IN_DEMO_YET: dict[str, str] = {}


NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

"NOT_IN_DEMO_YET: dict[str, str] = {}

pNOT_IN_DEMO_YET: dict[str, str] = {}

aNOT_IN_DEMO_YET: dict[str, str] = {}

rNOT_IN_DEMO_YET: dict[str, str] = {}

sNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

rNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

dNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

rNOT_IN_DEMO_YET: dict[str, str] = {}

iNOT_IN_DEMO_YET: dict[str, str] = {}

vNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

sNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

nNOT_IN_DEMO_YET: dict[str, str] = {}

oNOT_IN_DEMO_YET: dict[str, str] = {}

nNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

;NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

hNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

dNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

mNOT_IN_DEMO_YET: dict[str, str] = {}

oNOT_IN_DEMO_YET: dict[str, str] = {}

'NOT_IN_DEMO_YET: dict[str, str] = {}

sNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

sNOT_IN_DEMO_YET: dict[str, str] = {}

cNOT_IN_DEMO_YET: dict[str, str] = {}

rNOT_IN_DEMO_YET: dict[str, str] = {}

uNOT_IN_DEMO_YET: dict[str, str] = {}

bNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

pNOT_IN_DEMO_YET: dict[str, str] = {}

hNOT_IN_DEMO_YET: dict[str, str] = {}

aNOT_IN_DEMO_YET: dict[str, str] = {}

sNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

hNOT_IN_DEMO_YET: dict[str, str] = {}

aNOT_IN_DEMO_YET: dict[str, str] = {}

sNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

oNOT_IN_DEMO_YET: dict[str, str] = {}

nNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

iNOT_IN_DEMO_YET: dict[str, str] = {}

nNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

iNOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

sNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

xNOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

rNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

cNOT_IN_DEMO_YET: dict[str, str] = {}

oNOT_IN_DEMO_YET: dict[str, str] = {}

rNOT_IN_DEMO_YET: dict[str, str] = {}

dNOT_IN_DEMO_YET: dict[str, str] = {}

iNOT_IN_DEMO_YET: dict[str, str] = {}

nNOT_IN_DEMO_YET: dict[str, str] = {}

gNOT_IN_DEMO_YET: dict[str, str] = {}

sNOT_IN_DEMO_YET: dict[str, str] = {}

"NOT_IN_DEMO_YET: dict[str, str] = {}


NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

)NOT_IN_DEMO_YET: dict[str, str] = {}

,NOT_IN_DEMO_YET: dict[str, str] = {}


NOT_IN_DEMO_YET: dict[str, str] = {}

}NOT_IN_DEMO_YET: dict[str, str] = {}


NOT_IN_DEMO_YET: dict[str, str] = {}


NOT_IN_DEMO_YET: dict[str, str] = {}

ANOT_IN_DEMO_YET: dict[str, str] = {}

BNOT_IN_DEMO_YET: dict[str, str] = {}

SNOT_IN_DEMO_YET: dict[str, str] = {}

ENOT_IN_DEMO_YET: dict[str, str] = {}

NNOT_IN_DEMO_YET: dict[str, str] = {}

TNOT_IN_DEMO_YET: dict[str, str] = {}

_NOT_IN_DEMO_YET: dict[str, str] = {}

BNOT_IN_DEMO_YET: dict[str, str] = {}

YNOT_IN_DEMO_YET: dict[str, str] = {}

_NOT_IN_DEMO_YET: dict[str, str] = {}

DNOT_IN_DEMO_YET: dict[str, str] = {}

ENOT_IN_DEMO_YET: dict[str, str] = {}

SNOT_IN_DEMO_YET: dict[str, str] = {}

INOT_IN_DEMO_YET: dict[str, str] = {}

GNOT_IN_DEMO_YET: dict[str, str] = {}

NNOT_IN_DEMO_YET: dict[str, str] = {}

:NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

dNOT_IN_DEMO_YET: dict[str, str] = {}

iNOT_IN_DEMO_YET: dict[str, str] = {}

cNOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

[NOT_IN_DEMO_YET: dict[str, str] = {}

sNOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

rNOT_IN_DEMO_YET: dict[str, str] = {}

,NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

sNOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

rNOT_IN_DEMO_YET: dict[str, str] = {}

]NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

=NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

{NOT_IN_DEMO_YET: dict[str, str] = {}


NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

"NOT_IN_DEMO_YET: dict[str, str] = {}

zNOT_IN_DEMO_YET: dict[str, str] = {}

mNOT_IN_DEMO_YET: dict[str, str] = {}

oNOT_IN_DEMO_YET: dict[str, str] = {}

nNOT_IN_DEMO_YET: dict[str, str] = {}

_NOT_IN_DEMO_YET: dict[str, str] = {}

dNOT_IN_DEMO_YET: dict[str, str] = {}

iNOT_IN_DEMO_YET: dict[str, str] = {}

sNOT_IN_DEMO_YET: dict[str, str] = {}

kNOT_IN_DEMO_YET: dict[str, str] = {}

_NOT_IN_DEMO_YET: dict[str, str] = {}

sNOT_IN_DEMO_YET: dict[str, str] = {}

cNOT_IN_DEMO_YET: dict[str, str] = {}

sNOT_IN_DEMO_YET: dict[str, str] = {}

iNOT_IN_DEMO_YET: dict[str, str] = {}

_NOT_IN_DEMO_YET: dict[str, str] = {}

gNOT_IN_DEMO_YET: dict[str, str] = {}

rNOT_IN_DEMO_YET: dict[str, str] = {}

oNOT_IN_DEMO_YET: dict[str, str] = {}

wNOT_IN_DEMO_YET: dict[str, str] = {}

nNOT_IN_DEMO_YET: dict[str, str] = {}

_NOT_IN_DEMO_YET: dict[str, str] = {}

dNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

fNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

cNOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

sNOT_IN_DEMO_YET: dict[str, str] = {}

"NOT_IN_DEMO_YET: dict[str, str] = {}

:NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

"NOT_IN_DEMO_YET: dict[str, str] = {}

SNOT_IN_DEMO_YET: dict[str, str] = {}

ANOT_IN_DEMO_YET: dict[str, str] = {}

SNOT_IN_DEMO_YET: dict[str, str] = {}

/NOT_IN_DEMO_YET: dict[str, str] = {}

SNOT_IN_DEMO_YET: dict[str, str] = {}

CNOT_IN_DEMO_YET: dict[str, str] = {}

SNOT_IN_DEMO_YET: dict[str, str] = {}

INOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

dNOT_IN_DEMO_YET: dict[str, str] = {}

iNOT_IN_DEMO_YET: dict[str, str] = {}

sNOT_IN_DEMO_YET: dict[str, str] = {}

kNOT_IN_DEMO_YET: dict[str, str] = {}

sNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

oNOT_IN_DEMO_YET: dict[str, str] = {}

nNOT_IN_DEMO_YET: dict[str, str] = {}

lNOT_IN_DEMO_YET: dict[str, str] = {}

yNOT_IN_DEMO_YET: dict[str, str] = {}

;NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

hNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

dNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

mNOT_IN_DEMO_YET: dict[str, str] = {}

oNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

hNOT_IN_DEMO_YET: dict[str, str] = {}

oNOT_IN_DEMO_YET: dict[str, str] = {}

sNOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

hNOT_IN_DEMO_YET: dict[str, str] = {}

aNOT_IN_DEMO_YET: dict[str, str] = {}

sNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

SNOT_IN_DEMO_YET: dict[str, str] = {}

ANOT_IN_DEMO_YET: dict[str, str] = {}

TNOT_IN_DEMO_YET: dict[str, str] = {}

ANOT_IN_DEMO_YET: dict[str, str] = {}

,NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

NNOT_IN_DEMO_YET: dict[str, str] = {}

VNOT_IN_DEMO_YET: dict[str, str] = {}

MNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

,NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

vNOT_IN_DEMO_YET: dict[str, str] = {}

iNOT_IN_DEMO_YET: dict[str, str] = {}

rNOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

iNOT_IN_DEMO_YET: dict[str, str] = {}

oNOT_IN_DEMO_YET: dict[str, str] = {}

"NOT_IN_DEMO_YET: dict[str, str] = {}

,NOT_IN_DEMO_YET: dict[str, str] = {}


NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

'NOT_IN_DEMO_YET: dict[str, str] = {}

zNOT_IN_DEMO_YET: dict[str, str] = {}

mNOT_IN_DEMO_YET: dict[str, str] = {}

oNOT_IN_DEMO_YET: dict[str, str] = {}

nNOT_IN_DEMO_YET: dict[str, str] = {}

_NOT_IN_DEMO_YET: dict[str, str] = {}

zNOT_IN_DEMO_YET: dict[str, str] = {}

fNOT_IN_DEMO_YET: dict[str, str] = {}

sNOT_IN_DEMO_YET: dict[str, str] = {}

_NOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

vNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

nNOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

sNOT_IN_DEMO_YET: dict[str, str] = {}

_NOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

oNOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

aNOT_IN_DEMO_YET: dict[str, str] = {}

lNOT_IN_DEMO_YET: dict[str, str] = {}

{NOT_IN_DEMO_YET: dict[str, str] = {}

cNOT_IN_DEMO_YET: dict[str, str] = {}

lNOT_IN_DEMO_YET: dict[str, str] = {}

aNOT_IN_DEMO_YET: dict[str, str] = {}

sNOT_IN_DEMO_YET: dict[str, str] = {}

sNOT_IN_DEMO_YET: dict[str, str] = {}

=NOT_IN_DEMO_YET: dict[str, str] = {}

"NOT_IN_DEMO_YET: dict[str, str] = {}

dNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

aNOT_IN_DEMO_YET: dict[str, str] = {}

dNOT_IN_DEMO_YET: dict[str, str] = {}

mNOT_IN_DEMO_YET: dict[str, str] = {}

aNOT_IN_DEMO_YET: dict[str, str] = {}

nNOT_IN_DEMO_YET: dict[str, str] = {}

"NOT_IN_DEMO_YET: dict[str, str] = {}

}NOT_IN_DEMO_YET: dict[str, str] = {}

'NOT_IN_DEMO_YET: dict[str, str] = {}

:NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

"NOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

hNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

dNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

mNOT_IN_DEMO_YET: dict[str, str] = {}

oNOT_IN_DEMO_YET: dict[str, str] = {}

'NOT_IN_DEMO_YET: dict[str, str] = {}

sNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

vNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

nNOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

rNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

cNOT_IN_DEMO_YET: dict[str, str] = {}

oNOT_IN_DEMO_YET: dict[str, str] = {}

rNOT_IN_DEMO_YET: dict[str, str] = {}

dNOT_IN_DEMO_YET: dict[str, str] = {}

iNOT_IN_DEMO_YET: dict[str, str] = {}

nNOT_IN_DEMO_YET: dict[str, str] = {}

gNOT_IN_DEMO_YET: dict[str, str] = {}

sNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

hNOT_IN_DEMO_YET: dict[str, str] = {}

oNOT_IN_DEMO_YET: dict[str, str] = {}

lNOT_IN_DEMO_YET: dict[str, str] = {}

dNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

nNOT_IN_DEMO_YET: dict[str, str] = {}

oNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

dNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

aNOT_IN_DEMO_YET: dict[str, str] = {}

dNOT_IN_DEMO_YET: dict[str, str] = {}

mNOT_IN_DEMO_YET: dict[str, str] = {}

aNOT_IN_DEMO_YET: dict[str, str] = {}

nNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

vNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

nNOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

"NOT_IN_DEMO_YET: dict[str, str] = {}

,NOT_IN_DEMO_YET: dict[str, str] = {}


NOT_IN_DEMO_YET: dict[str, str] = {}

}NOT_IN_DEMO_YET: dict[str, str] = {}


NOT_IN_DEMO_YET: dict[str, str] = {}


NOT_IN_DEMO_YET: dict[str, str] = {}


NOT_IN_DEMO_YET: dict[str, str] = {}

dNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

fNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

_NOT_IN_DEMO_YET: dict[str, str] = {}

lNOT_IN_DEMO_YET: dict[str, str] = {}

oNOT_IN_DEMO_YET: dict[str, str] = {}

oNOT_IN_DEMO_YET: dict[str, str] = {}

kNOT_IN_DEMO_YET: dict[str, str] = {}

uNOT_IN_DEMO_YET: dict[str, str] = {}

pNOT_IN_DEMO_YET: dict[str, str] = {}

(NOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

aNOT_IN_DEMO_YET: dict[str, str] = {}

bNOT_IN_DEMO_YET: dict[str, str] = {}

lNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

:NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

dNOT_IN_DEMO_YET: dict[str, str] = {}

iNOT_IN_DEMO_YET: dict[str, str] = {}

cNOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

[NOT_IN_DEMO_YET: dict[str, str] = {}

sNOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

rNOT_IN_DEMO_YET: dict[str, str] = {}

,NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

sNOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

rNOT_IN_DEMO_YET: dict[str, str] = {}

]NOT_IN_DEMO_YET: dict[str, str] = {}

,NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

sNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

lNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

cNOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

oNOT_IN_DEMO_YET: dict[str, str] = {}

rNOT_IN_DEMO_YET: dict[str, str] = {}

:NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

sNOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

rNOT_IN_DEMO_YET: dict[str, str] = {}

)NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

-NOT_IN_DEMO_YET: dict[str, str] = {}

>NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

sNOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

rNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

|NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

NNOT_IN_DEMO_YET: dict[str, str] = {}

oNOT_IN_DEMO_YET: dict[str, str] = {}

nNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

:NOT_IN_DEMO_YET: dict[str, str] = {}


NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

nNOT_IN_DEMO_YET: dict[str, str] = {}

aNOT_IN_DEMO_YET: dict[str, str] = {}

mNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

=NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

sNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

lNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

cNOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

oNOT_IN_DEMO_YET: dict[str, str] = {}

rNOT_IN_DEMO_YET: dict[str, str] = {}

.NOT_IN_DEMO_YET: dict[str, str] = {}

sNOT_IN_DEMO_YET: dict[str, str] = {}

pNOT_IN_DEMO_YET: dict[str, str] = {}

lNOT_IN_DEMO_YET: dict[str, str] = {}

iNOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

(NOT_IN_DEMO_YET: dict[str, str] = {}

"NOT_IN_DEMO_YET: dict[str, str] = {}

{NOT_IN_DEMO_YET: dict[str, str] = {}

"NOT_IN_DEMO_YET: dict[str, str] = {}

,NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

1NOT_IN_DEMO_YET: dict[str, str] = {}

)NOT_IN_DEMO_YET: dict[str, str] = {}

[NOT_IN_DEMO_YET: dict[str, str] = {}

0NOT_IN_DEMO_YET: dict[str, str] = {}

]NOT_IN_DEMO_YET: dict[str, str] = {}


NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

iNOT_IN_DEMO_YET: dict[str, str] = {}

fNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

sNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

lNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

cNOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

oNOT_IN_DEMO_YET: dict[str, str] = {}

rNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

iNOT_IN_DEMO_YET: dict[str, str] = {}

nNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

aNOT_IN_DEMO_YET: dict[str, str] = {}

bNOT_IN_DEMO_YET: dict[str, str] = {}

lNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

:NOT_IN_DEMO_YET: dict[str, str] = {}


NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

rNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

uNOT_IN_DEMO_YET: dict[str, str] = {}

rNOT_IN_DEMO_YET: dict[str, str] = {}

nNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

aNOT_IN_DEMO_YET: dict[str, str] = {}

bNOT_IN_DEMO_YET: dict[str, str] = {}

lNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

[NOT_IN_DEMO_YET: dict[str, str] = {}

sNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

lNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

cNOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

oNOT_IN_DEMO_YET: dict[str, str] = {}

rNOT_IN_DEMO_YET: dict[str, str] = {}

]NOT_IN_DEMO_YET: dict[str, str] = {}


NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

rNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

uNOT_IN_DEMO_YET: dict[str, str] = {}

rNOT_IN_DEMO_YET: dict[str, str] = {}

nNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

fNOT_IN_DEMO_YET: dict[str, str] = {}

"NOT_IN_DEMO_YET: dict[str, str] = {}

{NOT_IN_DEMO_YET: dict[str, str] = {}

nNOT_IN_DEMO_YET: dict[str, str] = {}

aNOT_IN_DEMO_YET: dict[str, str] = {}

mNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

}NOT_IN_DEMO_YET: dict[str, str] = {}

:NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

{NOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

aNOT_IN_DEMO_YET: dict[str, str] = {}

bNOT_IN_DEMO_YET: dict[str, str] = {}

lNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

[NOT_IN_DEMO_YET: dict[str, str] = {}

nNOT_IN_DEMO_YET: dict[str, str] = {}

aNOT_IN_DEMO_YET: dict[str, str] = {}

mNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

]NOT_IN_DEMO_YET: dict[str, str] = {}

}NOT_IN_DEMO_YET: dict[str, str] = {}

"NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

iNOT_IN_DEMO_YET: dict[str, str] = {}

fNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

nNOT_IN_DEMO_YET: dict[str, str] = {}

aNOT_IN_DEMO_YET: dict[str, str] = {}

mNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

iNOT_IN_DEMO_YET: dict[str, str] = {}

nNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

aNOT_IN_DEMO_YET: dict[str, str] = {}

bNOT_IN_DEMO_YET: dict[str, str] = {}

lNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

lNOT_IN_DEMO_YET: dict[str, str] = {}

sNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

NNOT_IN_DEMO_YET: dict[str, str] = {}

oNOT_IN_DEMO_YET: dict[str, str] = {}

nNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}


NOT_IN_DEMO_YET: dict[str, str] = {}


NOT_IN_DEMO_YET: dict[str, str] = {}


NOT_IN_DEMO_YET: dict[str, str] = {}

dNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

fNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

rNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

aNOT_IN_DEMO_YET: dict[str, str] = {}

sNOT_IN_DEMO_YET: dict[str, str] = {}

oNOT_IN_DEMO_YET: dict[str, str] = {}

nNOT_IN_DEMO_YET: dict[str, str] = {}

_NOT_IN_DEMO_YET: dict[str, str] = {}

fNOT_IN_DEMO_YET: dict[str, str] = {}

oNOT_IN_DEMO_YET: dict[str, str] = {}

rNOT_IN_DEMO_YET: dict[str, str] = {}

(NOT_IN_DEMO_YET: dict[str, str] = {}

sNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

lNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

cNOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

oNOT_IN_DEMO_YET: dict[str, str] = {}

rNOT_IN_DEMO_YET: dict[str, str] = {}

:NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

sNOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

rNOT_IN_DEMO_YET: dict[str, str] = {}

)NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

-NOT_IN_DEMO_YET: dict[str, str] = {}

>NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

sNOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

rNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

|NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

NNOT_IN_DEMO_YET: dict[str, str] = {}

oNOT_IN_DEMO_YET: dict[str, str] = {}

nNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

:NOT_IN_DEMO_YET: dict[str, str] = {}


NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

"NOT_IN_DEMO_YET: dict[str, str] = {}

"NOT_IN_DEMO_YET: dict[str, str] = {}

"NOT_IN_DEMO_YET: dict[str, str] = {}

WNOT_IN_DEMO_YET: dict[str, str] = {}

hNOT_IN_DEMO_YET: dict[str, str] = {}

yNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

`NOT_IN_DEMO_YET: dict[str, str] = {}

`NOT_IN_DEMO_YET: dict[str, str] = {}

sNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

lNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

cNOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

oNOT_IN_DEMO_YET: dict[str, str] = {}

rNOT_IN_DEMO_YET: dict[str, str] = {}

`NOT_IN_DEMO_YET: dict[str, str] = {}

`NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

hNOT_IN_DEMO_YET: dict[str, str] = {}

aNOT_IN_DEMO_YET: dict[str, str] = {}

sNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

nNOT_IN_DEMO_YET: dict[str, str] = {}

oNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

dNOT_IN_DEMO_YET: dict[str, str] = {}

aNOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

aNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

oNOT_IN_DEMO_YET: dict[str, str] = {}

nNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

hNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

dNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

mNOT_IN_DEMO_YET: dict[str, str] = {}

oNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

hNOT_IN_DEMO_YET: dict[str, str] = {}

oNOT_IN_DEMO_YET: dict[str, str] = {}

sNOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

yNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

(NOT_IN_DEMO_YET: dict[str, str] = {}

xNOT_IN_DEMO_YET: dict[str, str] = {}

fNOT_IN_DEMO_YET: dict[str, str] = {}

aNOT_IN_DEMO_YET: dict[str, str] = {}

iNOT_IN_DEMO_YET: dict[str, str] = {}

lNOT_IN_DEMO_YET: dict[str, str] = {}

)NOT_IN_DEMO_YET: dict[str, str] = {}

,NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

oNOT_IN_DEMO_YET: dict[str, str] = {}

rNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

NNOT_IN_DEMO_YET: dict[str, str] = {}

oNOT_IN_DEMO_YET: dict[str, str] = {}

nNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

.NOT_IN_DEMO_YET: dict[str, str] = {}

"NOT_IN_DEMO_YET: dict[str, str] = {}

"NOT_IN_DEMO_YET: dict[str, str] = {}

"NOT_IN_DEMO_YET: dict[str, str] = {}


NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

rNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

uNOT_IN_DEMO_YET: dict[str, str] = {}

rNOT_IN_DEMO_YET: dict[str, str] = {}

nNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

_NOT_IN_DEMO_YET: dict[str, str] = {}

lNOT_IN_DEMO_YET: dict[str, str] = {}

oNOT_IN_DEMO_YET: dict[str, str] = {}

oNOT_IN_DEMO_YET: dict[str, str] = {}

kNOT_IN_DEMO_YET: dict[str, str] = {}

uNOT_IN_DEMO_YET: dict[str, str] = {}

pNOT_IN_DEMO_YET: dict[str, str] = {}

(NOT_IN_DEMO_YET: dict[str, str] = {}

NNOT_IN_DEMO_YET: dict[str, str] = {}

ONOT_IN_DEMO_YET: dict[str, str] = {}

TNOT_IN_DEMO_YET: dict[str, str] = {}

_NOT_IN_DEMO_YET: dict[str, str] = {}

INOT_IN_DEMO_YET: dict[str, str] = {}

NNOT_IN_DEMO_YET: dict[str, str] = {}

_NOT_IN_DEMO_YET: dict[str, str] = {}

DNOT_IN_DEMO_YET: dict[str, str] = {}

ENOT_IN_DEMO_YET: dict[str, str] = {}

MNOT_IN_DEMO_YET: dict[str, str] = {}

ONOT_IN_DEMO_YET: dict[str, str] = {}

_NOT_IN_DEMO_YET: dict[str, str] = {}

YNOT_IN_DEMO_YET: dict[str, str] = {}

ENOT_IN_DEMO_YET: dict[str, str] = {}

TNOT_IN_DEMO_YET: dict[str, str] = {}

,NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

sNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

lNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

cNOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

oNOT_IN_DEMO_YET: dict[str, str] = {}

rNOT_IN_DEMO_YET: dict[str, str] = {}

)NOT_IN_DEMO_YET: dict[str, str] = {}


NOT_IN_DEMO_YET: dict[str, str] = {}


NOT_IN_DEMO_YET: dict[str, str] = {}


NOT_IN_DEMO_YET: dict[str, str] = {}

dNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

fNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

aNOT_IN_DEMO_YET: dict[str, str] = {}

bNOT_IN_DEMO_YET: dict[str, str] = {}

sNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

nNOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

_NOT_IN_DEMO_YET: dict[str, str] = {}

bNOT_IN_DEMO_YET: dict[str, str] = {}

yNOT_IN_DEMO_YET: dict[str, str] = {}

_NOT_IN_DEMO_YET: dict[str, str] = {}

dNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

sNOT_IN_DEMO_YET: dict[str, str] = {}

iNOT_IN_DEMO_YET: dict[str, str] = {}

gNOT_IN_DEMO_YET: dict[str, str] = {}

nNOT_IN_DEMO_YET: dict[str, str] = {}

(NOT_IN_DEMO_YET: dict[str, str] = {}

sNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

lNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

cNOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

oNOT_IN_DEMO_YET: dict[str, str] = {}

rNOT_IN_DEMO_YET: dict[str, str] = {}

:NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

sNOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

rNOT_IN_DEMO_YET: dict[str, str] = {}

)NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

-NOT_IN_DEMO_YET: dict[str, str] = {}

>NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

sNOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

rNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

|NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

NNOT_IN_DEMO_YET: dict[str, str] = {}

oNOT_IN_DEMO_YET: dict[str, str] = {}

nNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

:NOT_IN_DEMO_YET: dict[str, str] = {}


NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

"NOT_IN_DEMO_YET: dict[str, str] = {}

"NOT_IN_DEMO_YET: dict[str, str] = {}

"NOT_IN_DEMO_YET: dict[str, str] = {}

WNOT_IN_DEMO_YET: dict[str, str] = {}

hNOT_IN_DEMO_YET: dict[str, str] = {}

yNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

`NOT_IN_DEMO_YET: dict[str, str] = {}

`NOT_IN_DEMO_YET: dict[str, str] = {}

sNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

lNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

cNOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

oNOT_IN_DEMO_YET: dict[str, str] = {}

rNOT_IN_DEMO_YET: dict[str, str] = {}

`NOT_IN_DEMO_YET: dict[str, str] = {}

`NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

cNOT_IN_DEMO_YET: dict[str, str] = {}

aNOT_IN_DEMO_YET: dict[str, str] = {}

nNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

nNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

vNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

rNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

hNOT_IN_DEMO_YET: dict[str, str] = {}

aNOT_IN_DEMO_YET: dict[str, str] = {}

vNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

dNOT_IN_DEMO_YET: dict[str, str] = {}

aNOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

aNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

oNOT_IN_DEMO_YET: dict[str, str] = {}

nNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

hNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

dNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

mNOT_IN_DEMO_YET: dict[str, str] = {}

oNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

hNOT_IN_DEMO_YET: dict[str, str] = {}

oNOT_IN_DEMO_YET: dict[str, str] = {}

sNOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

,NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

oNOT_IN_DEMO_YET: dict[str, str] = {}

rNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

NNOT_IN_DEMO_YET: dict[str, str] = {}

oNOT_IN_DEMO_YET: dict[str, str] = {}

nNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

.NOT_IN_DEMO_YET: dict[str, str] = {}

"NOT_IN_DEMO_YET: dict[str, str] = {}

"NOT_IN_DEMO_YET: dict[str, str] = {}

"NOT_IN_DEMO_YET: dict[str, str] = {}


NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

rNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

uNOT_IN_DEMO_YET: dict[str, str] = {}

rNOT_IN_DEMO_YET: dict[str, str] = {}

nNOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

_NOT_IN_DEMO_YET: dict[str, str] = {}

lNOT_IN_DEMO_YET: dict[str, str] = {}

oNOT_IN_DEMO_YET: dict[str, str] = {}

oNOT_IN_DEMO_YET: dict[str, str] = {}

kNOT_IN_DEMO_YET: dict[str, str] = {}

uNOT_IN_DEMO_YET: dict[str, str] = {}

pNOT_IN_DEMO_YET: dict[str, str] = {}

(NOT_IN_DEMO_YET: dict[str, str] = {}

ANOT_IN_DEMO_YET: dict[str, str] = {}

BNOT_IN_DEMO_YET: dict[str, str] = {}

SNOT_IN_DEMO_YET: dict[str, str] = {}

ENOT_IN_DEMO_YET: dict[str, str] = {}

NNOT_IN_DEMO_YET: dict[str, str] = {}

TNOT_IN_DEMO_YET: dict[str, str] = {}

_NOT_IN_DEMO_YET: dict[str, str] = {}

BNOT_IN_DEMO_YET: dict[str, str] = {}

YNOT_IN_DEMO_YET: dict[str, str] = {}

_NOT_IN_DEMO_YET: dict[str, str] = {}

DNOT_IN_DEMO_YET: dict[str, str] = {}

ENOT_IN_DEMO_YET: dict[str, str] = {}

SNOT_IN_DEMO_YET: dict[str, str] = {}

INOT_IN_DEMO_YET: dict[str, str] = {}

GNOT_IN_DEMO_YET: dict[str, str] = {}

NNOT_IN_DEMO_YET: dict[str, str] = {}

,NOT_IN_DEMO_YET: dict[str, str] = {}

 NOT_IN_DEMO_YET: dict[str, str] = {}

sNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

lNOT_IN_DEMO_YET: dict[str, str] = {}

eNOT_IN_DEMO_YET: dict[str, str] = {}

cNOT_IN_DEMO_YET: dict[str, str] = {}

tNOT_IN_DEMO_YET: dict[str, str] = {}

oNOT_IN_DEMO_YET: dict[str, str] = {}

rNOT_IN_DEMO_YET: dict[str, str] = {}

)NOT_IN_DEMO_YET: dict[str, str] = {}


NOT_IN_DEMO_YET: dict[str, str] = {}


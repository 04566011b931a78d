from django.urls import path

from tables import views

urlpatterns = [
    path("", views.lobby, name="lobby"),
    path("tables/<int:table_id>/", views.table, name="table"),
    path("tables/<int:table_id>/join/", views.join, name="table-join"),
    path("tables/<int:table_id>/leave/", views.leave, name="table-leave"),
    path("practice/", views.practice, name="practice"),
    path("history/", views.history, name="history"),
    path("history/games/<int:game_id>/", views.game_detail, name="game-detail"),
    path("history/deals/<int:deal_id>/", views.deal_detail, name="deal-detail"),
]
